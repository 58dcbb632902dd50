import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// The App Store Server API endpoints of one Apple host that Apple's App Store Server Library calls beyond the
/// transaction, history, status, lookup and support ones: Request a Test Notification and Get Test Notification Status,
/// Extend Subscription Renewal Dates for All Active Subscribers and its status, Set App Account Token, Get App
/// Transaction Info and Finish Transaction. Behind Apple's bearer-token check, with Apple's error payloads.
extension AppStoreSupportAPIController {
    var managementEndpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("inApps/v1/notifications/test") { request, _ in
            try await self.serve(.testNotification) { try await self.requestTestNotification(request) }
        }
        routes.get("inApps/v1/notifications/test/{token}") { request, context in
            try await self.serve(.testNotification) { try await self.testNotificationStatus(request, context) }
        }
        routes.post("inApps/v1/subscriptions/extend/mass") { request, _ in
            try await self.serve(.massExtend) { try await self.massExtend(request) }
        }
        routes.get("inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}") { request, context in
            try await self.serve(.massExtend) { try await self.massExtendStatus(request, context) }
        }
        routes.put("inApps/v1/transactions/{transactionId}/appAccountToken") { request, context in
            try await self.serve(.appAccountToken) { try await self.setAppAccountToken(request, context) }
        }
        routes.get("inApps/v1/transactions/appTransactions/{transactionId}") { request, context in
            try await self.serve(.appTransactions) { try await self.appTransactionInfo(request, context) }
        }
        routes.post("inApps/v1/transactions/{transactionId}/finish") { request, context in
            try await self.serve(.finish) { try await self.finish(request, context) }
        }
        return routes
    }

    /// Request a Test Notification: a `TEST` notification about the token's app, in this host's environment, to the
    /// sandbox's App Store notification URL; the token is the notification's UUID and the time it was made.
    private func requestTestNotification(_ request: Request) async throws -> Response {
        let bundleId = try await authenticator.authenticate(request.headers)
        let now = Date()
        let event = AppleEvent(.test, bundleId: bundleId, environment: host.environment, at: now)
        let delivery: NotificationDelivery
        do {
            delivery = try await dispatcher.sendOne(.apple(event), at: now)
        } catch SandboxStoreError.notificationURLNotSet {
            throw AppleAPIError.api(.serverNotificationURLNotFound)
        }
        return try AppleAPIResponse.json(
            AppStoreSendTestNotificationResponse(
                testNotificationToken: "\(delivery.id)_\(delivery.createdAt.appleMilliseconds)"))
    }

    /// Get Test Notification Status: the `TEST` notification's `signedPayload` and its delivery attempts; not found,
    /// as at Apple, until the first attempt was made.
    private func testNotificationStatus(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let bundleId = try await authenticator.authenticate(request.headers)
        let token = context.parameters.get("token") ?? ""
        guard let separator = token.lastIndex(of: "_"), UUID(uuidString: String(token[..<separator])) != nil,
            Int64(token[token.index(after: separator)...]) != nil
        else { throw AppleAPIError.api(.invalidTestNotificationToken) }
        guard let delivery = try? await dispatcher.delivery(String(token[..<separator])), delivery.store == "apple",
            delivery.type == AppleNotificationType.test.rawValue, delivery.bundleId == bundleId,
            delivery.environment == host.environment.rawValue, !delivery.sendAttempts.isEmpty
        else { throw AppleAPIError.api(.testNotificationNotFound) }
        return try AppleAPIResponse.json(
            AppStoreCheckTestNotificationResponse(
                signedPayload: delivery.signedPayload, sendAttempts: delivery.sendAttempts))
    }

    /// Extend Subscription Renewal Dates for All Active Subscribers, with Apple's checks of the request.
    private func massExtend(_ request: Request) async throws -> Response {
        let bundleId = try await authenticator.authenticate(request.headers)
        let body = try await Self.decode(AppStoreMassExtendRenewalDateRequest.self, from: request)
        let (days, identifier) = try Self.checkExtension(
            days: body.extendByDays, reason: body.extendReasonCode, requestIdentifier: body.requestIdentifier)
        guard let productId = body.productId, CreateAppleTransactionRequest.isIdentifier(productId) else {
            throw AppleAPIError.api(.invalidProductId)
        }
        if let codes = body.storefrontCountryCodes {
            guard codes.allSatisfy(Self.isCountryCode) else { throw AppleAPIError.api(.invalidStorefrontCountryCode) }
        }
        let (record, events) = try await store.massExtendAppleRenewals(
            productId: productId, days: days, storefronts: body.storefrontCountryCodes,
            requestIdentifier: identifier, bundleId: bundleId, environment: host.environment)
        await dispatcher.send(events.map(StoreEvent.apple))
        return try AppleAPIResponse.json(
            AppStoreMassExtendRenewalDateResponse(requestIdentifier: record.requestIdentifier))
    }

    /// Get Status of Subscription Renewal Date Extensions.
    private func massExtendStatus(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let bundleId = try await authenticator.authenticate(request.headers)
        let productId = context.parameters.get("productId") ?? ""
        let identifier = context.parameters.get("requestIdentifier") ?? ""
        guard (1...128).contains(identifier.utf8.count) else { throw AppleAPIError.api(.invalidRequestIdentifier) }
        guard
            let record = await store.appleMassExtension(
                productId: productId, requestIdentifier: identifier, bundleId: bundleId, environment: host.environment)
        else { throw AppleAPIError.api(.statusRequestNotFound) }
        return try AppleAPIResponse.json(
            AppStoreMassExtendRenewalDateStatusResponse(
                requestIdentifier: record.requestIdentifier, complete: true, completeDate: record.completeDate,
                succeededCount: record.succeededCount, failedCount: record.failedCount))
    }

    /// Set App Account Token: answered 200 without a body, as Apple does.
    private func setAppAccountToken(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let bundleId = try await authenticator.authenticate(request.headers)
        let id = context.parameters.get("transactionId") ?? ""
        guard Self.isTransactionID(id) else {
            throw AppleAPIError.api(.invalidOriginalTransactionId)
        }
        let body = try await Self.decode(AppStoreUpdateAppAccountTokenRequest.self, from: request)
        guard let token = body.appAccountToken.flatMap(UUID.init(uuidString:)) else {
            throw AppleAPIError.api(.invalidAppAccountTokenUUID)
        }
        do {
            try await store.assignAppleAppAccountToken(
                token.uuidString.lowercased(), originalTransactionId: id, bundleId: bundleId,
                environment: host.environment)
        } catch let refusal as AppleAppAccountTokenRefusal {
            throw AppleAPIError.api(
                refusal == .notFound ? .originalTransactionIdNotFound : .transactionIdIsNotOriginalTransactionId)
        }
        return Response(status: .ok, headers: [.contentLength: "0"])
    }

    /// Get App Transaction Info: the app transaction of the customer any of whose ids (`transactionId`,
    /// `originalTransactionId` or `appTransactionId`) the path names. A customer who bought with an app account token
    /// has one (made now when the app never asked for it); one without a token has none.
    private func appTransactionInfo(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let record = try await Self.transaction(
            context.parameters.get("transactionId") ?? "",
            bundleId: try await authenticator.authenticate(request.headers),
            host: host, store: store, orAppTransaction: true)
        guard let token = record.appAccountToken else { throw AppleAPIError.api(.appTransactionDoesNotExist) }
        let (appTransaction, _) = try await store.appTransaction(
            AppleAppTransactionDraft(
                bundleId: record.bundleId, environment: host.environment, appAccountToken: token,
                appAppleId: record.appAppleId, originalApplicationVersion: nil, applicationVersion: nil,
                originalPurchaseDate: Date(appleMilliseconds: record.originalPurchaseDate), preorderDate: nil,
                originalPlatform: nil))
        return try AppleAPIResponse.json(
            AppStoreAppTransactionInfoResponse(signedAppTransactionInfo: try signer.appTransaction(appTransaction)))
    }

    /// Finish Transaction: the transaction must be the app's, in this environment; answered 200 without a body. The
    /// sandbox keeps no finished state (nothing it answers depends on it).
    private func finish(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        _ = try await Self.transaction(
            context.parameters.get("transactionId") ?? "",
            bundleId: try await authenticator.authenticate(request.headers),
            host: host, store: store)
        return Response(status: .ok, headers: [.contentLength: "0"])
    }

    /// The JSON body as `T`, or Apple's `GeneralBadRequestError`.
    static func decode<T: Decodable>(_: T.Type, from request: Request) async throws -> T {
        let buffer = try await request.body.collect(upTo: 64 * 1024)
        guard let body = try? JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView)) else {
            throw AppleAPIError.api(.generalBadRequest)
        }
        return body
    }

    /// An ISO 3166-1 alpha-3 code's shape: three capital letters.
    private static func isCountryCode(_ code: String) -> Bool {
        code.utf8.count == 3 && code.utf8.allSatisfy { $0 >= 0x41 && $0 <= 0x5a }
    }
}
