import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport

@testable import Catalog
@testable import Entitlements
@testable import Subscriptions

/// A live catalog, subscriptions service and entitlements service on the test database, called as the verifier
/// and the gateway would: store facts go to subscriptions, then to entitlements, as the verifier sends them.
struct SubscriptionsHarness {
    let catalog: any TestClientProtocol
    let subscriptions: any TestClientProtocol
    let entitlements: any TestClientProtocol
    let appID: String

    static let fastEnvironment = ["SHOPKEEPER_EXPIRY_SWEEP_MS": "50", "SHOPKEEPER_SUBSCRIPTION_RELAY_MS": "50"]

    static func run(
        appID: String = TestEnvironment.uniqueAppID(),
        products: [Product] = SubscriptionFixtures.products,
        entitlementsEnvironment: [String: String] = [:],
        _ body: @Sendable (SubscriptionsHarness) async throws -> Void
    ) async throws {
        let catalogApp = try await Catalog.buildApplication(
            settings: try CatalogSettings.read(from: TestEnvironment.reader()))
        let subscriptionsApp = try await Subscriptions.buildApplication(
            settings: try SubscriptionsSettings.read(from: TestEnvironment.reader(fastEnvironment)))
        try await catalogApp.testLive { catalog in
            try await subscriptionsApp.testLive { subscriptions in
                var environment = fastEnvironment.merging(entitlementsEnvironment) { $1 }
                environment["SHOPKEEPER_SUBSCRIPTIONS_URL"] = "http://127.0.0.1:\(subscriptions.port ?? 0)"
                let entitlementsApp = try await Entitlements.buildApplication(
                    settings: try EntitlementsSettings.read(from: TestEnvironment.reader(environment)))
                try await entitlementsApp.testLive { entitlements in
                    let harness = SubscriptionsHarness(
                        catalog: catalog, subscriptions: subscriptions, entitlements: entitlements, appID: appID)
                    let imported = try await catalog.importCatalog(products, appID: appID)
                    guard imported.status == .ok else {
                        throw HarnessFailure(
                            "catalog import answered \(imported.status): \(String(buffer: imported.body))")
                    }
                    try await body(harness)
                }
            }
        }
    }

    /// A signed request to `client`, as a sibling service sends it.
    @discardableResult
    func send(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, kind: APIKeyKind = .secret,
        json: Data? = nil
    ) async throws -> TestResponse {
        var headers = HTTPFields.signed(method, path, appID: appID, kind: kind, body: json)
        if json != nil { headers[.contentType] = "application/json" }
        return try await client.execute(
            uri: path, method: method, headers: headers, body: json.map { ByteBuffer(bytes: $0) })
    }

    /// ``send(_:_:_:kind:json:)`` over a connection of its own (``ConcurrentHTTP``), so that calls made at once reach
    /// the service at once: the live test client sends every request over one connection, which the server answers
    /// in turn.
    func sendAtOnce(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, kind: APIKeyKind = .secret,
        json: Data? = nil
    ) async throws -> ConcurrentHTTP.Answer {
        var headers = HTTPFields.signed(method, path, appID: appID, kind: kind, body: json)
        if json != nil { headers[.contentType] = "application/json" }
        return try await ConcurrentHTTP.send(port: client.port ?? 0, method, path, headers: headers, body: json)
    }

    /// Hands facts over as the verifier does: subscriptions first, then entitlements (for `user`, or as news about
    /// owned purchases when `nil`). Requires both to answer 200. `atOnce` sends each call over a connection of its
    /// own (see ``sendAtOnce(_:_:_:kind:json:)``), for applies raced at once.
    @discardableResult
    func apply(
        _ transactions: [StoreTransaction], renewals: [SubscriptionRenewalFacts] = [], user: String? = "user-1",
        device: String? = "device-1", source: ApplySource = .purchase, atOnce: Bool = false
    ) async throws -> ApplyResponse {
        let timeline = try await post(
            subscriptions, "/internal/v1/apply",
            json: try TestJSON.encode(
                SubscriptionApplyRequest(source: source, transactions: transactions, renewals: renewals)),
            atOnce: atOnce)
        guard timeline.status == .ok else {
            throw HarnessFailure("subscriptions apply answered \(timeline.status): \(timeline.text)")
        }
        guard !transactions.isEmpty else { return ApplyResponse(customer: nil, outcomes: []) }
        let response = try await post(
            entitlements, "/internal/v1/apply",
            json: try TestJSON.encode(
                ApplyRequest(appUserID: user, deviceID: device, source: source, transactions: transactions)),
            atOnce: atOnce)
        guard response.status == .ok else {
            throw HarnessFailure("entitlements apply answered \(response.status): \(response.text)")
        }
        return try response.decode(ApplyResponse.self)
    }

    /// A signed internal `POST`, through the live client or over a connection of its own.
    private func post(_ client: any TestClientProtocol, _ path: String, json: Data, atOnce: Bool) async throws
        -> any HTTPAnswer
    {
        if atOnce { return try await sendAtOnce(client, .post, path, json: json) }
        return try await send(client, .post, path, json: json)
    }

    /// `GET /v1/customers/{user}`, decoded.
    func info(_ user: String = "user-1") async throws -> CustomerInfo {
        let response = try await send(entitlements, .get, "/v1/customers/\(user)", kind: .public)
        guard response.status == .ok else {
            throw HarnessFailure("customer info answered \(response.status): \(String(buffer: response.body))")
        }
        return try TestJSON.decode(CustomerInfo.self, response.body.readableBytesView)
    }

    /// The app's event types, oldest first.
    func eventTypes() async throws -> [String] {
        let response = try await send(entitlements, .get, "/v1/admin/events?limit=100")
        let events = try TestJSON.object(response.body.readableBytesView)["events"] as? [[String: Any]] ?? []
        return events.compactMap { $0["type"] as? String }.reversed()
    }

    /// The app's event types once `condition` holds for them (events are relayed in the background), or after
    /// `timeout`: compare the result, so a failure shows what was there.
    func eventTypes(
        timeout: Duration = .seconds(30), until condition: @Sendable ([String]) -> Bool
    ) async throws -> [String] {
        try await eventually(timeout: timeout, { try await eventTypes() }, until: condition)
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Products and store facts of the subscriptions tests.
enum SubscriptionFixtures {
    static let products: [Product] = [
        product("pro_monthly", type: .autoRenewable, group: "pro", trial: "P7D"),
        product("pro_yearly", type: .autoRenewable, group: "pro"),
        product("pass_year", type: .nonRenewing, group: "pass", duration: "P1Y", entitlements: ["pass"]),
        product("pass_month", type: .nonRenewing, group: "pass", duration: "P1M", entitlements: ["pass"]),
        product("garden", type: .nonConsumable, entitlements: ["garden"]),
    ]

    static func product(
        _ id: String, type: ProductType, group: String? = nil, duration: String = "P1M", trial: String? = nil,
        entitlements: [String] = ["pro"]
    ) -> Product {
        Product(
            productID: id, type: type, storeProductIDs: [.appStore: "com.test.\(id)", .playStore: id],
            entitlements: entitlements,
            duration: type == .nonRenewing || type == .autoRenewable ? ISODuration(duration) : nil,
            trialDuration: trial.flatMap(ISODuration.init),
            localizations: ["en": ProductLocalization(name: id, description: id)], group: group)
    }

    /// An App Store transaction of `com.test.<product>` from `start` to `end` (whole seconds).
    static func transaction(
        _ id: String = UUID().uuidString, product: String = "pro_monthly", original: String? = nil,
        start: Date = Date().addingTimeInterval(-60), end: Date? = Date().addingTimeInterval(30 * 86_400),
        offer: StoreOffer? = nil, revoked: Date? = nil, familyShared: Bool = false
    ) -> StoreTransaction {
        StoreTransaction(
            store: .appStore, environment: .sandbox, transactionID: id, originalTransactionID: original ?? id,
            storeProductID: "com.test.\(product)", type: nil, quantity: 1, purchaseDate: whole(start),
            expiresDate: end.map(whole), revocationDate: revoked.map(whole),
            revocationReason: revoked == nil ? nil : .other, ownershipType: familyShared ? .familyShared : .purchased,
            offer: offer, priceMilliunits: 4990, currency: "EUR")
    }

    static func whole(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
