import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperTestSupport

@testable import Catalog
@testable import Entitlements
@testable import Subscriptions

/// Runs a live catalog, a live subscriptions service and one or more live entitlements replicas on the test
/// database, and calls them as the gateway and the verifier would.
struct EntitlementsHarness {
    /// The entitlements replicas (at least one).
    let replicas: [any TestClientProtocol]
    let catalog: any TestClientProtocol
    let subscriptions: any TestClientProtocol
    let appID: String
    /// The database the services use (the shared test database unless `DATABASE_URL` names another).
    let database: DatabaseSettings

    var client: any TestClientProtocol { replicas[0] }

    /// Runs `body` with the services started; `environment` is added to every service's settings (a
    /// `DATABASE_URL` there moves the catalog too). `webhookResolver` resolves webhook hosts.
    static func run(
        appID: String = TestEnvironment.uniqueAppID(),
        replicas count: Int = 1,
        environment: [String: String] = [:],
        products: [Product] = EntitlementsFixtures.products,
        webhookResolver: any WebhookResolver = SystemWebhookResolver(),
        _ body: @Sendable (EntitlementsHarness) async throws -> Void
    ) async throws {
        let catalogApp = try await Catalog.buildApplication(
            settings: try CatalogSettings.read(from: TestEnvironment.reader(environment)))
        let subscriptionsApp = try await Subscriptions.buildApplication(
            settings: try SubscriptionsSettings.read(from: TestEnvironment.reader(environment)))
        let database =
            try environment["DATABASE_URL"].map { try DatabaseSettings.parse($0, variable: "DATABASE_URL") }
            ?? TestDatabase.settings()
        try await catalogApp.testLive { catalog in
            try await subscriptionsApp.testLive { subscriptions in
                var environment = environment
                environment["SHOPKEEPER_SUBSCRIPTIONS_URL"] = "http://127.0.0.1:\(subscriptions.port ?? 0)"
                try await withReplicas(
                    count, environment: environment, resolver: webhookResolver, started: []
                ) { replicas in
                    let harness = EntitlementsHarness(
                        replicas: replicas, catalog: catalog, subscriptions: subscriptions, appID: appID,
                        database: database)
                    if !products.isEmpty {
                        let imported = try await harness.importCatalog(products)
                        guard imported.status == .ok else {
                            throw HarnessError(
                                "catalog import answered \(imported.status): \(String(buffer: imported.body))")
                        }
                    }
                    try await body(harness)
                }
            }
        }
    }

    private static func withReplicas(
        _ count: Int, environment: [String: String], resolver: any WebhookResolver,
        started: [any TestClientProtocol], _ body: @Sendable ([any TestClientProtocol]) async throws -> Void
    ) async throws {
        guard started.count < count else { return try await body(started) }
        let settings = try EntitlementsSettings.read(from: TestEnvironment.reader(environment))
        let app = try await Entitlements.buildApplication(settings: settings, webhookResolver: resolver)
        try await app.testLive { client in
            try await withReplicas(
                count, environment: environment, resolver: resolver, started: started + [client], body)
        }
    }

    /// The same services, called as another app (a new id unless given), with the same catalog imported.
    func otherApp(
        _ appID: String = TestEnvironment.uniqueAppID(), products: [Product] = EntitlementsFixtures.products
    ) async throws -> EntitlementsHarness {
        let other = EntitlementsHarness(
            replicas: replicas, catalog: catalog, subscriptions: subscriptions, appID: appID, database: database)
        if !products.isEmpty {
            let imported = try await other.importCatalog(products)
            guard imported.status == .ok else {
                throw HarnessError("catalog import answered \(imported.status): \(String(buffer: imported.body))")
            }
        }
        return other
    }

    /// Sends a request signed for this harness's app with a key of `kind`, to `replica`. `atOnce` sends it over a
    /// connection of its own (``ConcurrentHTTP``), so that requests made at once reach the replica at once: the live
    /// test client sends every request over one connection, which the server answers in turn.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ path: String, kind: APIKeyKind = .secret, json: Data? = nil,
        headers extra: HTTPFields = [:], replica: Int = 0, atOnce: Bool = false
    ) async throws -> any HTTPAnswer {
        var headers = HTTPFields.signed(method, path, appID: appID, kind: kind, body: json)
        headers.append(contentsOf: extra)
        if atOnce {
            return try await ConcurrentHTTP.send(
                port: replicas[replica].port ?? 0, method, path, headers: headers, body: json)
        }
        return try await replicas[replica].execute(
            uri: path, method: method, headers: headers, body: json.map { ByteBuffer(bytes: $0) })
    }

    func importCatalog(_ products: [Product]) async throws -> any HTTPAnswer {
        try await catalog.importCatalog(products, appID: appID)
    }

    /// Applies transactions as the verifier does after recording them (`atOnce`: see ``send``).
    @discardableResult
    func apply(
        _ transactions: [StoreTransaction], user: String? = "user-1", device: String? = "device-1",
        source: ApplySource = .purchase, replica: Int = 0, atOnce: Bool = false
    ) async throws -> any HTTPAnswer {
        let request = ApplyRequest(appUserID: user, deviceID: device, source: source, transactions: transactions)
        return try await send(
            .post, "/internal/v1/apply", json: try TestJSON.encode(request), replica: replica, atOnce: atOnce)
    }

    /// Applies and decodes, requiring 200.
    func applied(
        _ transactions: [StoreTransaction], user: String? = "user-1", device: String? = "device-1",
        source: ApplySource = .purchase
    ) async throws -> ApplyResponse {
        let response = try await apply(transactions, user: user, device: device, source: source)
        guard response.status == .ok else {
            throw HarnessError("apply answered \(response.status): \(String(buffer: response.body))")
        }
        return try TestJSON.decode(ApplyResponse.self, response.body.readableBytesView)
    }

    /// `GET /v1/customers/{user}`, decoded, requiring 200.
    func info(_ user: String, kind: APIKeyKind = .public) async throws -> CustomerInfo {
        let response = try await send(.get, "/v1/customers/\(user)", kind: kind)
        guard response.status == .ok else {
            throw HarnessError("customer info answered \(response.status): \(String(buffer: response.body))")
        }
        return try TestJSON.decode(CustomerInfo.self, response.body.readableBytesView)
    }
}

/// A failed precondition of a test, with what the server answered.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Products and transactions shared by the entitlements tests.
enum EntitlementsFixtures {
    static let products: [Product] = [
        product("garden", type: .nonConsumable, entitlements: ["extra_garden"]),
        product("seeds", type: .consumable, quantity: 5),
        product("pro_year", type: .nonRenewing, entitlements: ["pro"]),
        product("pro_monthly", type: .autoRenewable, entitlements: ["pro"]),
    ]

    static func product(
        _ id: String, type: ProductType, entitlements: [String] = [], quantity: Int? = nil
    ) -> Product {
        Product(
            productID: id, type: type, storeProductIDs: [.appStore: "com.test.\(id)", .playStore: id],
            entitlements: entitlements, consumableQuantity: quantity,
            duration: type == .nonRenewing || type == .autoRenewable ? ISODuration("P1Y") : nil,
            localizations: ["en": ProductLocalization(name: id, description: id)])
    }

    /// A transaction of the App Store product `com.test.<product>`.
    static func transaction(
        _ id: String = UUID().uuidString, product: String = "garden", original: String? = nil,
        environment: StoreEnvironment = .sandbox, quantity: Int = 1, revoked: Date? = nil,
        store: StorePlatform = .appStore, appAccountToken: String? = nil, obfuscatedAccountID: String? = nil,
        expires: Date? = nil
    ) -> StoreTransaction {
        StoreTransaction(
            store: store, environment: environment, transactionID: id, originalTransactionID: original ?? id,
            storeProductID: store == .appStore ? "com.test.\(product)" : product, type: nil, quantity: quantity,
            purchaseDate: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 60).rounded(.down)),
            expiresDate: expires, revocationDate: revoked, revocationReason: revoked == nil ? nil : .other,
            appAccountToken: appAccountToken, obfuscatedAccountID: obfuscatedAccountID, priceMilliunits: 990,
            currency: "EUR")
    }
}
