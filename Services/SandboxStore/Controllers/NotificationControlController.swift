import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// `/sandbox/notifications`: where the sandbox sends store notifications, what it sent, sending one again (many
/// times, many at once), and sending any notification on request.
///
/// - `GET` (`?store=apple|google`): `{"apple_url", "google_url", "google_audience", "deliveries": [...]}`, oldest
///   first (``NotificationDeliveryView``).
/// - `PUT` `{"apple_url": "http://...", "google_url": ..., "stripe_url": ..., "google_audience": ..., "hold": false}`: a field left out
///   is kept, `null` stops sending to that store. `"hold": true` keeps new notifications in the log undelivered (for
///   resending in any order); `false` delivers those never sent, in order. Answers the targets.
/// - `DELETE`: forgets the log.
/// - `GET /{id}`: one delivery.
/// - `POST /{id}/resend?times=N&concurrency=M`: the same body again N times (1-10000), M at once (1-512):
///   `{"id", "statuses": [...], "delivered": k}`.
/// - `POST /apple` `{"type": "TEST", "bundle_id": ...}` or `{"type": ..., "subtype": ..., "transaction_id": ...,
///   "consumption_request_reason": ...}`: any App Store notification about a transaction, without changing it.
/// - `POST /apple/test` `{"bundle_id": ...}`: a `TEST` notification (the same as `POST /apple` with type `TEST`).
/// - `POST /apple/rescind-consent` `{"bundle_id", "app_account_token", "environment", "app_apple_id"}`: `RESCIND_CONSENT`, with
///   the customer's app transaction in `appData` (made when they have none).
/// - `POST /apple/external-purchase-token` `{"bundle_id", "app_apple_id", "environment", "external_purchase_id",
///   "token_creation_date"}` (all but `bundle_id` optional): `EXTERNAL_PURCHASE_TOKEN` `UNREPORTED`, with
///   `externalPurchaseToken` (a sandbox id starts with `SANDBOX`).
/// - `POST /apple` with type `RENEWAL_EXTENSION`, subtype `SUMMARY`, `bundle_id` and `product_id`: the summary of a
///   mass renewal-date extension (`summary`: request id, counts, storefronts).
/// - `POST /google` `{"package_name": ..., "type": "test"}` or `{"purchase_token": ..., "notification_type": N}`.
struct NotificationControlController {
    let store: SandboxStore
    let dispatcher: NotificationDispatcher
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get { request, _ in
            let storeName = request.uri.queryParameters["store"].map(String.init)
            let targets = await dispatcher.targets()
            return try JSONBody.response(
                NotificationLog(targets: targets, deliveries: await dispatcher.deliveries(store: storeName)))
        }
        routes.put { request, _ in
            let change = try await Self.targetsChange(from: request, limit: maxBodyBytes)
            return try JSONBody.response(await dispatcher.update(change))
        }
        routes.delete { _, _ in
            await dispatcher.clearLog()
            return Response(status: .noContent)
        }
        routes.get("{id}") { _, context in
            let id = context.parameters.get("id") ?? ""
            return try JSONBody.response(
                NotificationDeliveryView(try await ErrorMapping.control { try await dispatcher.delivery(id) }))
        }
        routes.post("{id}/resend") { request, context in
            let id = context.parameters.get("id") ?? ""
            let query = request.uri.queryParameters
            let times = query["times"].map { Int(String($0)) } ?? 1
            let concurrency = query["concurrency"].map { Int(String($0)) } ?? 1
            guard let times, let concurrency, (1...10_000).contains(times), (1...512).contains(concurrency) else {
                throw RequestError.invalidQuery([
                    FieldProblem(pointer: "?times", detail: "times must be 1 to 10000, concurrency 1 to 512")
                ])
            }
            let statuses = try await ErrorMapping.control {
                try await dispatcher.resend(id, times: times, concurrency: concurrency)
            }
            return try JSONBody.response(
                ResendResult(id: id, statuses: statuses, delivered: statuses.filter { (200..<300).contains($0) }.count))
        }
        routes.post("apple") { request, _ in
            let body = try await JSONBody.decode(AppleNotificationRequest.self, from: request, limit: maxBodyBytes)
            let event = try await appleEvent(body)
            let delivery = try await ErrorMapping.control { try await dispatcher.sendOne(.apple(event)) }
            return try JSONBody.response(NotificationDeliveryView(delivery), status: .created)
        }
        routes.post("apple/rescind-consent") { request, _ in
            let body = try await JSONBody.decode(RescindConsentRequest.self, from: request, limit: maxBodyBytes)
            let draft = try CreateAppleAppTransactionRequest(
                bundleId: body.bundleId, appAccountToken: body.appAccountToken, environment: body.environment,
                appAppleId: body.appAppleId
            ).draft()
            let (record, _) = try await ErrorMapping.control { try await store.appTransaction(draft) }
            let event = AppleEvent.rescindConsent(record, at: Date())
            let delivery = try await ErrorMapping.control { try await dispatcher.sendOne(.apple(event)) }
            return try JSONBody.response(NotificationDeliveryView(delivery), status: .created)
        }
        routes.post("apple/external-purchase-token") { request, _ in
            let body = try await JSONBody.decode(ExternalPurchaseTokenRequest.self, from: request, limit: maxBodyBytes)
            let (token, environment) = try body.token()
            let event = AppleEvent.externalPurchaseToken(token, environment: environment, at: Date())
            let delivery = try await ErrorMapping.control { try await dispatcher.sendOne(.apple(event)) }
            return try JSONBody.response(NotificationDeliveryView(delivery), status: .created)
        }
        routes.post("apple/test") { request, _ in
            let body = try await JSONBody.decode(TestNotificationRequest.self, from: request, limit: maxBodyBytes)
            guard CreateAppleTransactionRequest.isIdentifier(body.bundleId) else {
                throw RequestError.invalid("/bundle_id", "must be a bundle id")
            }
            let event = AppleEvent(.test, bundleId: body.bundleId, environment: .sandbox, at: Date())
            let delivery = try await ErrorMapping.control { try await dispatcher.sendOne(.apple(event)) }
            return try JSONBody.response(NotificationDeliveryView(delivery), status: .created)
        }
        routes.post("google") { request, _ in
            let body = try await JSONBody.decode(GoogleNotificationRequest.self, from: request, limit: maxBodyBytes)
            let event = try await googleEvent(body)
            let delivery = try await ErrorMapping.control { try await dispatcher.sendOne(.google(event)) }
            return try JSONBody.response(NotificationDeliveryView(delivery), status: .created)
        }
        return routes
    }

    private func appleEvent(_ body: AppleNotificationRequest) async throws -> AppleEvent {
        guard let type = AppleNotificationType(rawValue: body.type) else {
            throw RequestError.invalid("/type", "must be a notificationType Apple documents, e.g. TEST or REFUND")
        }
        let subtype = try body.subtype.map { text in
            guard let subtype = AppleNotificationSubtype(rawValue: text) else {
                throw RequestError.invalid("/subtype", "must be a subtype Apple documents, e.g. GRACE_PERIOD")
            }
            return subtype
        }
        switch type {
        case .rescindConsent:
            throw RequestError.invalid(
                "/type", "RESCIND_CONSENT is sent by POST /sandbox/notifications/apple/rescind-consent")
        case .externalPurchaseToken:
            throw RequestError.invalid(
                "/type", "EXTERNAL_PURCHASE_TOKEN is sent by POST /sandbox/notifications/apple/external-purchase-token")
        default: break
        }
        guard let id = body.transactionId else {
            guard let bundleId = body.bundleId, CreateAppleTransactionRequest.isIdentifier(bundleId) else {
                throw RequestError.invalid("/bundle_id", "is required without transaction_id")
            }
            let environment = AppleEnvironment(rawValue: body.environment ?? "Sandbox") ?? .sandbox
            var event = AppleEvent(type, bundleId: bundleId, environment: environment, at: Date())
            event.subtype = subtype
            if type == .renewalExtension && subtype == .summary {
                guard let productId = body.productId, CreateAppleTransactionRequest.isIdentifier(productId) else {
                    throw RequestError.invalid("/product_id", "is required for a RENEWAL_EXTENSION SUMMARY")
                }
                event.summary = AppleNotificationPayload.Summary(
                    requestIdentifier: UUID().uuidString.lowercased(), environment: environment.rawValue,
                    appAppleId: body.appAppleId ?? AppleAppIdentity.appAppleId(bundleId: bundleId), bundleId: bundleId,
                    productId: productId, storefrontCountryCodes: ["USA"], succeededCount: 0, failedCount: 0)
            }
            return event
        }
        guard let record = await store.appleTransaction(id: id) else {
            throw ErrorMapping.controlError(.transactionNotFound(id))
        }
        var event = await store.event(type, subtype, transaction: record, at: Date())
        event.consumptionRequestReason = body.consumptionRequestReason
        return event
    }

    private func googleEvent(_ body: GoogleNotificationRequest) async throws -> GoogleEvent {
        if let token = body.purchaseToken {
            guard let record = await store.googlePurchase(token: token) else {
                throw ErrorMapping.controlError(.purchaseNotFound(token))
            }
            guard let number = body.notificationType else {
                throw RequestError.invalid("/notification_type", "is required with purchase_token")
            }
            if record.kind == .subscription, let type = GoogleSubscriptionNotificationType(rawValue: number) {
                return .subscription(type, record, at: Date())
            }
            if record.kind == .product, let type = GoogleOneTimeProductNotificationType(rawValue: number) {
                return .oneTime(type, record, at: Date())
            }
            throw RequestError.invalid("/notification_type", "is not a notification type of this kind of purchase")
        }
        guard body.type == "test", let packageName = body.packageName,
            CreateAppleTransactionRequest.isIdentifier(packageName)
        else { throw RequestError.invalid("/type", "give type test with package_name, or a purchase_token") }
        return .test(packageName: packageName, at: Date())
    }

    /// Reads a `PUT` body, telling absent fields (kept) from `null` (removed).
    static func targetsChange(from request: Request, limit: Int) async throws -> NotificationTargetsChange {
        let body = try await ControlBody.decodeOptional(
            TargetsBody.self, from: request, limit: limit, empty: TargetsBody(fields: [:]))
        var change = NotificationTargetsChange()
        var problems: [FieldProblem] = []
        func url(_ name: String) -> URL?? {
            guard let value = body.fields[name] else { return nil }
            guard case .text(let text) = value else {
                if case .null = value { return .some(nil) }
                problems.append(FieldProblem(pointer: "/\(name)", detail: "must be an http or https URL, or null"))
                return nil
            }
            guard let parsed = URL(string: text), let scheme = parsed.scheme?.lowercased(),
                scheme == "http" || scheme == "https", parsed.host != nil
            else {
                problems.append(FieldProblem(pointer: "/\(name)", detail: "must be an http or https URL, or null"))
                return nil
            }
            return .some(parsed)
        }
        change.appleURL = url("apple_url")
        change.googleURL = url("google_url")
        change.stripeURL = url("stripe_url")
        switch body.fields["google_audience"] {
        case .text(let audience): change.googleAudience = .some(audience)
        case .null: change.googleAudience = .some(nil)
        case .flag: problems.append(FieldProblem(pointer: "/google_audience", detail: "must be a string or null"))
        case nil: break
        }
        switch body.fields["hold"] {
        case .flag(let hold): change.hold = hold
        case .text, .null: problems.append(FieldProblem(pointer: "/hold", detail: "must be true or false"))
        case nil: break
        }
        for name in body.fields.keys
        where !["apple_url", "google_url", "stripe_url", "google_audience", "hold"].contains(name) {
            problems.append(FieldProblem(pointer: "/\(name)", detail: "is not a notification setting"))
        }
        guard problems.isEmpty else { throw RequestError.validationFailed(problems) }
        return change
    }
}

/// The body of `PUT /sandbox/notifications`: strings, booleans and `null`s by name.
struct TargetsBody: Decodable, Sendable {
    enum Value: Decodable, Sendable {
        case text(String)
        case flag(Bool)
        case null

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let flag = try? container.decode(Bool.self) {
                self = .flag(flag)
            } else {
                self = .text(try container.decode(String.self))
            }
        }
    }

    var fields: [String: Value]

    init(fields: [String: Value]) {
        self.fields = fields
    }

    init(from decoder: any Decoder) throws {
        fields = try [String: Value](from: decoder)
    }
}

/// `GET /sandbox/notifications`.
struct NotificationLog: Encodable, Sendable {
    var targets: NotificationTargets
    var deliveries: [NotificationDelivery]

    func encode(to encoder: any Encoder) throws {
        try targets.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deliveries.map(NotificationDeliveryView.init), forKey: .deliveries)
    }

    enum CodingKeys: String, CodingKey {
        case deliveries
    }
}

/// The answer to a resend.
struct ResendResult: Codable, Sendable {
    var id: String
    /// One per send; 0 where nothing answered.
    var statuses: [Int]
    /// How many answered 2xx.
    var delivered: Int
}

/// `POST /sandbox/notifications/apple`.
struct AppleNotificationRequest: Codable, Sendable {
    var type: String
    var subtype: String?
    var transactionId: String?
    var bundleId: String?
    var environment: String?
    var consumptionRequestReason: String?
    /// `RENEWAL_EXTENSION` `SUMMARY`: the product whose subscriptions were extended.
    var productId: String?
    /// `RENEWAL_EXTENSION` `SUMMARY`: the app's Apple ID (default: one derived from the bundle id).
    var appAppleId: Int64?

    enum CodingKeys: String, CodingKey {
        case type, subtype, environment
        case productId = "product_id"
        case appAppleId = "app_apple_id"
        case transactionId = "transaction_id"
        case bundleId = "bundle_id"
        case consumptionRequestReason = "consumption_request_reason"
    }
}

/// `POST /sandbox/notifications/apple/test`.
struct TestNotificationRequest: Codable, Sendable {
    var bundleId: String

    enum CodingKeys: String, CodingKey {
        case bundleId = "bundle_id"
    }
}

/// `POST /sandbox/notifications/google`.
struct GoogleNotificationRequest: Codable, Sendable {
    var type: String?
    var packageName: String?
    var purchaseToken: String?
    var notificationType: Int?

    enum CodingKeys: String, CodingKey {
        case type
        case packageName = "package_name"
        case purchaseToken = "purchase_token"
        case notificationType = "notification_type"
    }
}
