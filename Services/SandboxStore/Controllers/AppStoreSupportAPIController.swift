import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// The App Store Server API's support endpoints of one Apple host, behind Apple's bearer-token check and with Apple's
/// error payloads: Get Refund History (20 a page), Get Notification History (over what the sandbox sent or held,
/// 20 a page) and Extend a Subscription Renewal Date (which moves the expiry and sends `RENEWAL_EXTENDED`); the rest
/// Apple's library calls are its ``managementEndpoints``.
struct AppStoreSupportAPIController {
    let host: AppleHost
    let store: SandboxStore
    let signer: AppleSigner
    let traffic: StoreTraffic
    let dispatcher: NotificationDispatcher

    var authenticator: AppleBearerAuthenticator { AppleBearerAuthenticator(store: store) }

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("inApps/v2/refund/lookup/{transactionId}") { request, context in
            try await self.serve(.refunds) { try await self.refunds(request, context) }
        }
        routes.post("inApps/v1/notifications/history") { request, _ in
            try await self.serve(.notificationHistory) { try await self.notificationHistory(request) }
        }
        // Transaction ids are digits: the literal `extend` beside `subscriptions/{transactionId}` hides none.
        routes.put("inApps/v1/subscriptions/extend/{originalTransactionId}") { request, context in
            try await self.serve(.extend) { try await self.extend(request, context) }
        }
        return routes
    }

    /// Counts the call, applies faults, maps domain errors to Apple's.
    func serve(_ api: StoreEndpoint.AppleAPI, _ handler: () async throws -> Response) async throws -> Response {
        try await traffic.observeApple(host, api, handler)
    }

    /// The refunded transactions of the customer `transactionId` names (any `transactionId`, `originalTransactionId`
    /// or `appTransactionId` of theirs, as Apple's endpoint takes), oldest refund first; `revision` is where the next
    /// page starts (kept, it also finds refunds made later).
    private func refunds(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let bundleId = try await authenticator.authenticate(request.headers)
        let record = try await transaction(
            context.parameters.get("transactionId") ?? "", bundleId: bundleId, orAppTransaction: true)
        var offset = 0
        if let revision = request.uri.queryParameters.get("revision") {
            guard let decoded = HistoryRevision.offset(of: revision) else {
                throw AppleAPIError.api(.invalidRequestRevision)
            }
            offset = decoded
        }
        let refunded = await store.refundedTransactions(of: record)
        let page = refunded.dropFirst(offset).prefix(AppStoreServerAPIController.historyPageSize)
        let next = min(offset, refunded.count) + page.count
        return try AppleAPIResponse.json(
            AppStoreRefundHistoryResponse(
                signedTransactions: try page.map { try signer.transaction($0) },
                revision: HistoryRevision.token(for: next), hasMore: next < refunded.count))
    }

    private func notificationHistory(_ request: Request) async throws -> Response {
        let bundleId = try await authenticator.authenticate(request.headers)
        let body = try await Self.decode(AppStoreNotificationHistoryRequest.self, from: request)
        let query = AppleNotificationHistoryQuery(request: body, environment: host.environment, now: Date())
        _ = try query.range()
        var customer: Set<String>?
        if let id = body.transactionId {
            let record = try await transaction(id, bundleId: bundleId)
            customer = Set(await store.customerTransactions(of: record).map(\.transactionId))
        }
        let deliveries = await dispatcher.appleHistory(bundleId: bundleId, environment: host.environment)
        return try AppleAPIResponse.json(
            try query.page(
                of: deliveries, customer: customer, token: request.uri.queryParameters.get("paginationToken")))
    }

    private func extend(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let bundleId = try await authenticator.authenticate(request.headers)
        let id = context.parameters.get("originalTransactionId") ?? ""
        guard Self.isTransactionID(id) else { throw AppleAPIError.api(.invalidOriginalTransactionId) }
        let body = try await Self.decode(AppStoreExtendRenewalDateRequest.self, from: request)
        let (days, _) = try Self.checkExtension(
            days: body.extendByDays, reason: body.extendReasonCode, requestIdentifier: body.requestIdentifier)
        let (extended, events): (AppleTransactionRecord, [AppleEvent])
        do {
            (extended, events) = try await store.extendAppleRenewal(
                originalTransactionId: id, days: days, bundleId: bundleId, environment: host.environment)
        } catch let refusal as AppleExtensionRefusal {
            throw AppleAPIError.api(
                refusal == .notFound ? .originalTransactionIdNotFound : .subscriptionExtensionIneligible)
        }
        await dispatcher.send(events.map(StoreEvent.apple))
        return try AppleAPIResponse.json(
            AppStoreExtendRenewalDateResponse(
                originalTransactionId: id, webOrderLineItemId: extended.webOrderLineItemId, success: true,
                effectiveDate: extended.expiresDate))
    }

    /// The transaction `id` names (or, `orAppTransaction`, a transaction of the customer whose `appTransactionId` it
    /// is), in `host`'s environment and of the token's app (`bundleId`).
    static func transaction(
        _ id: String, bundleId: String, host: AppleHost, store: SandboxStore, orAppTransaction: Bool = false
    ) async throws -> AppleTransactionRecord {
        guard isTransactionID(id) else { throw AppleAPIError.api(.invalidTransactionId) }
        let found = orAppTransaction ? await store.appleTransaction(anyId: id) : await store.appleTransaction(id: id)
        guard let record = found, record.environment == host.environment else {
            throw SandboxStoreError.transactionNotFound(id)
        }
        guard record.bundleId == bundleId else { throw AppleAPIError.unauthorized }
        return record
    }

    private func transaction(_ id: String, bundleId: String, orAppTransaction: Bool = false) async throws
        -> AppleTransactionRecord
    {
        try await Self.transaction(id, bundleId: bundleId, host: host, store: store, orAppTransaction: orAppTransaction)
    }

    /// Apple's checks of a renewal-date extension request (one subscription's or all active subscribers'):
    /// `extendByDays` 1 to 90, `extendReasonCode` 0 to 3, a `requestIdentifier` of 1 to 128 characters.
    static func checkExtension(days: Int?, reason: Int?, requestIdentifier: String?) throws(AppleAPIError) -> (
        days: Int, requestIdentifier: String
    ) {
        guard let days, (1...90).contains(days) else { throw .api(.invalidExtendByDays) }
        guard let reason, (0...3).contains(reason) else { throw .api(.invalidExtendReasonCode) }
        guard let requestIdentifier, (1...128).contains(requestIdentifier.utf8.count) else {
            throw .api(.invalidRequestIdentifier)
        }
        return (days, requestIdentifier)
    }

    /// Apple's transaction ids: 1 to 20 digits.
    static func isTransactionID(_ id: String) -> Bool {
        (1...20).contains(id.utf8.count) && id.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
