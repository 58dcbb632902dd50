import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// The App Store Server API of one Apple host (`/apple/production` or `/apple/sandbox`): transaction info, history,
/// subscription status and order lookup, behind Apple's bearer-token check and with Apple's error payloads.
struct AppStoreServerAPIController {
    /// Transactions per history page, as Apple.
    static let historyPageSize = 20

    let host: AppleHost
    let store: SandboxStore
    let signer: AppleSigner
    let traffic: StoreTraffic

    private var authenticator: AppleBearerAuthenticator { AppleBearerAuthenticator(store: store) }

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("inApps/v1/transactions/{transactionId}") { request, context in
            try await self.serve(.transactions, request, context) { try await self.transactionInfo($0, $1) }
        }
        // Get Transaction History: `v1` (deprecated, still called by Apple's library by default) answers as `v2`.
        for version in ["v1", "v2"] {
            routes.get(RouterPath(stringLiteral: "inApps/\(version)/history/{transactionId}")) { request, context in
                try await self.serve(.history, request, context) { try await self.history($0, $1) }
            }
        }
        routes.get("inApps/v1/subscriptions/{transactionId}") { request, context in
            try await self.serve(.subscriptions, request, context) { try await self.subscriptionStatus($0, $1) }
        }
        routes.get("inApps/v1/lookup/{orderId}") { request, context in
            try await self.serve(.lookup, request, context) { try await self.lookup($0, $1) }
        }
        for version in ["v1", "v2"] {
            routes.put(RouterPath(stringLiteral: "inApps/\(version)/transactions/consumption/{transactionId}")) {
                request, context in
                try await self.serve(.consumption, request, context) {
                    try await self.consumption($0, $1, version: version)
                }
            }
        }
        return routes
    }

    /// Counts the call, applies faults, maps domain errors to Apple's.
    private func serve(
        _ api: StoreEndpoint.AppleAPI, _ request: Request, _ context: ServiceRequestContext,
        _ handler: (Request, ServiceRequestContext) async throws -> Response
    ) async throws -> Response {
        try await traffic.observeApple(host, api) { try await handler(request, context) }
    }

    /// The transaction named in the path, after the bearer check: in this host's environment and of the token's app.
    private func authorizedTransaction(_ request: Request, _ context: ServiceRequestContext) async throws
        -> AppleTransactionRecord
    {
        let bundleId = try await authenticator.authenticate(request.headers)
        let id = context.parameters.get("transactionId") ?? ""
        guard (1...20).contains(id.utf8.count), id.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw AppleAPIError.api(.invalidTransactionId)
        }
        guard let record = await store.appleTransaction(id: id), record.environment == host.environment else {
            throw SandboxStoreError.transactionNotFound(id)
        }
        guard record.bundleId == bundleId else { throw AppleAPIError.unauthorized }
        return record
    }

    private func transactionInfo(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let record = try await authorizedTransaction(request, context)
        return try AppleAPIResponse.json(
            AppStoreTransactionInfoResponse(signedTransactionInfo: try signer.transaction(record)))
    }

    private func history(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let record = try await authorizedTransaction(request, context)
        let query = request.uri.queryParameters
        var offset = 0
        if let revision = query.get("revision") {
            guard let decoded = HistoryRevision.offset(of: revision) else {
                throw AppleAPIError.api(.invalidRequestRevision)
            }
            offset = decoded
        }
        let productIds = Set(query.getAll("productId"))
        let productTypes = Set(query.getAll("productType"))
        let groups = Set(query.getAll("subscriptionGroupIdentifier"))
        let revoked = query.get("revoked").map { $0.lowercased() == "true" }
        // Every purchase the sandbox makes is the buyer's own (`PURCHASED`): `FAMILY_SHARED` finds none.
        let ownership = query.get("inAppOwnershipType")
        let start = query.get("startDate").flatMap { Int64($0) } ?? Int64.min
        let end = query.get("endDate").flatMap { Int64($0) } ?? Int64.max
        let ordered = await store.customerTransactions(of: record).enumerated()
            .sorted { ($0.element.purchaseDate, $0.offset) < ($1.element.purchaseDate, $1.offset) }
            .map(\.element)
        var transactions = ordered.filter { (transaction: AppleTransactionRecord) -> Bool in
            guard productIds.isEmpty || productIds.contains(transaction.productId) else { return false }
            guard productTypes.isEmpty || productTypes.contains(Self.historyProductType(transaction.type)) else {
                return false
            }
            if !groups.isEmpty {
                guard let group = transaction.subscriptionGroupIdentifier, groups.contains(group) else { return false }
            }
            if let revoked, transaction.isRevoked != revoked { return false }
            guard ownership == nil || ownership == "PURCHASED" else { return false }
            return transaction.purchaseDate >= start && transaction.purchaseDate < end
        }
        if query.get("sort") == "DESCENDING" { transactions.reverse() }
        let page = transactions.dropFirst(offset).prefix(Self.historyPageSize)
        let next = min(offset, transactions.count) + page.count
        return try AppleAPIResponse.json(
            AppStoreHistoryResponse(
                revision: HistoryRevision.token(for: next), hasMore: next < transactions.count,
                bundleId: record.bundleId, appAppleId: record.appAppleId, environment: host.environment.rawValue,
                signedTransactions: try page.map { try signer.transaction($0) }
            ))
    }

    /// The `productType` query value of Get Transaction History that names `type`.
    static func historyProductType(_ type: AppleProductType) -> String {
        switch type {
        case .autoRenewable: "AUTO_RENEWABLE"
        case .nonRenewing: "NON_RENEWABLE"
        case .consumable: "CONSUMABLE"
        case .nonConsumable: "NON_CONSUMABLE"
        }
    }

    private func subscriptionStatus(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let record = try await authorizedTransaction(request, context)
        let wanted = Set(request.uri.queryParameters.getAll("status").compactMap { Int($0) })
        let subscriptions = await store.customerTransactions(of: record).filter { $0.type == .autoRenewable }
        var groups: [String] = []
        var chains: [String: [String]] = [:]
        for transaction in subscriptions {
            let group = transaction.subscriptionGroupIdentifier ?? ""
            if chains[group] == nil { groups.append(group) }
            if chains[group, default: []].contains(transaction.originalTransactionId) == false {
                chains[group, default: []].append(transaction.originalTransactionId)
            }
        }
        let now = Date()
        var data: [AppStoreSubscriptionGroupItem] = []
        for group in groups {
            var items: [AppStoreLastTransactionsItem] = []
            for originalId in chains[group] ?? [] {
                guard let latest = await store.latestTransaction(ofSubscription: originalId) else { continue }
                let status = latest.subscriptionStatus(at: now)
                guard wanted.isEmpty || wanted.contains(status.rawValue) else { continue }
                items.append(
                    AppStoreLastTransactionsItem(
                        status: status.rawValue, originalTransactionId: originalId,
                        signedTransactionInfo: try signer.transaction(latest, at: now),
                        signedRenewalInfo: try signer.renewalInfo(
                            latest, recentStart: latest.originalPurchaseDate,
                            renewsInto: await store.renewsInto(originalId), at: now)
                    ))
            }
            if !items.isEmpty {
                data.append(AppStoreSubscriptionGroupItem(subscriptionGroupIdentifier: group, lastTransactions: items))
            }
        }
        return try AppleAPIResponse.json(
            AppStoreStatusResponse(
                environment: host.environment.rawValue, bundleId: record.bundleId, appAppleId: record.appAppleId,
                data: data))
    }

    /// Send Consumption Information (`v2`; `v1` for the older body): the body is kept as sent, for
    /// `GET /sandbox/apple/transactions/{id}/consumption`, and answered 202 without a body, as Apple does.
    /// `customerConsented` must be `true`.
    private func consumption(_ request: Request, _ context: ServiceRequestContext, version: String) async throws
        -> Response
    {
        let record = try await authorizedTransaction(request, context)
        let buffer = try await request.body.collect(upTo: 64 * 1024)
        let body = Data(buffer.readableBytesView)
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            object["customerConsented"] as? Bool == true
        else { throw AppleAPIError.api(.generalBadRequest) }
        try await store.recordConsumption(
            AppleConsumptionRecord(
                transactionId: record.transactionId, version: version, body: String(decoding: body, as: UTF8.self),
                receivedAt: Date()))
        return Response(status: .accepted, headers: [.contentLength: "0"])
    }

    private func lookup(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let bundleId = try await authenticator.authenticate(request.headers)
        let orderId = context.parameters.get("orderId") ?? ""
        let found = await store.transactions(orderId: orderId, bundleId: bundleId, environment: host.environment)
        return try AppleAPIResponse.json(
            AppStoreOrderLookupResponse(
                status: (found.isEmpty ? AppStoreOrderLookupStatus.invalid : .valid).rawValue,
                signedTransactions: try found.map { try signer.transaction($0) }
            ))
    }
}

/// The opaque `revision` of a history page: where the next page starts.
enum HistoryRevision {
    private static let prefix = "sbx1."

    static func token(for offset: Int) -> String {
        Base64URL.encode(Array((prefix + String(offset)).utf8))
    }

    static func offset(of token: String) -> Int? {
        guard let bytes = Base64URL.decode(token) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix(prefix), let offset = Int(text.dropFirst(prefix.count)), offset >= 0 else { return nil }
        return offset
    }
}
