import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperStores
import ShopkeeperTestSupport
import X509

@testable import Catalog
@testable import Entitlements
@testable import Subscriptions
@testable import Verifier

/// Runs a live verifier on the test database that trusts a test signing chain, and calls it as the
/// gateway would.
struct VerifierHarness {
    let client: any TestClientProtocol
    let appID: String
    let chain: SigningChain
    /// The catalog and entitlements services behind this verifier.
    let catalog: any TestClientProtocol
    let entitlements: any TestClientProtocol

    static let bundleID = "com.example.garden"

    /// One chain for the whole test run, so its root file is written once.
    static let sharedChain: SigningChain = {
        do {
            return try SigningChain.generate(
                SigningChain.Options(name: "Verifier Tests", notValidBefore: Date(timeIntervalSinceNow: -30 * 86_400)))
        } catch {
            fatalError("cannot generate the test chain: \(error)")
        }
    }()

    static func rootFile(for chain: SigningChain) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("shopkeeper-verifier-root-\(ProcessInfo.processInfo.processIdentifier).pem").path
        try chain.root.serializeAsPEM().pemString.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func run(
        appID: String = TestEnvironment.uniqueAppID(),
        environment: [String: String] = [:],
        _ body: @Sendable (VerifierHarness) async throws -> Void
    ) async throws {
        let chain = sharedChain
        var values = ["SHOPKEEPER_APPLE_ROOT_CERTIFICATES": try rootFile(for: chain)]
        values.merge(environment) { _, new in new }
        // The verifier hands recorded facts to subscriptions and entitlements, which read the catalog's views.
        // A DATABASE_URL in `environment` moves every service there.
        let shared = environment.filter { $0.key == "DATABASE_URL" }
        let catalog = try await Catalog.buildApplication(
            settings: try CatalogSettings.read(from: TestEnvironment.reader(shared)))
        let subscriptions = try await Subscriptions.buildApplication(
            settings: try SubscriptionsSettings.read(from: TestEnvironment.reader(shared)))
        let configured = values
        try await catalog.testLive { catalogClient in
            try await subscriptions.testLive { subscriptionsClient in
                let subscriptionsURL = "http://127.0.0.1:\(subscriptionsClient.port ?? 0)"
                let entitlements = try await Entitlements.buildApplication(
                    settings: try EntitlementsSettings.read(
                        from: TestEnvironment.reader(
                            shared.merging(["SHOPKEEPER_SUBSCRIPTIONS_URL": subscriptionsURL]) { _, new in new })))
                try await entitlements.testLive { entitlementsClient in
                    var values = configured
                    values["SHOPKEEPER_ENTITLEMENTS_URL"] =
                        values["SHOPKEEPER_ENTITLEMENTS_URL"] ?? "http://127.0.0.1:\(entitlementsClient.port ?? 0)"
                    values["SHOPKEEPER_SUBSCRIPTIONS_URL"] = values["SHOPKEEPER_SUBSCRIPTIONS_URL"] ?? subscriptionsURL
                    let settings = try VerifierSettings.read(from: TestEnvironment.reader(values))
                    let app = try await makeVerifierApplication(settings: settings)
                    try await app.testLive { client in
                        try await body(
                            VerifierHarness(
                                client: client, appID: appID, chain: chain, catalog: catalogClient,
                                entitlements: entitlementsClient))
                    }
                }
            }
        }
    }

    /// Sends a request signed for this harness's app with a key of `kind` to the verifier. `atOnce` sends it over a
    /// connection of its own (``ConcurrentHTTP``), so that requests made at once reach the verifier at once: the live
    /// test client sends every request over one connection, which the server answers in turn.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ path: String, kind: APIKeyKind = .secret, json: Data? = nil,
        atOnce: Bool = false
    ) async throws -> any HTTPAnswer {
        var headers = HTTPFields.signed(method, path, appID: appID, kind: kind, body: json)
        if json != nil { headers[.contentType] = "application/json" }
        if atOnce {
            return try await ConcurrentHTTP.send(port: client.port ?? 0, method, path, headers: headers, body: json)
        }
        return try await client.execute(
            uri: path, method: method, headers: headers, body: json.map { ByteBuffer(bytes: $0) })
    }

    /// Sends a request signed for this harness's app with a secret key to `service` (the catalog or entitlements).
    func send(
        to service: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, json: Data? = nil
    ) async throws -> any HTTPAnswer {
        var headers = HTTPFields.signed(method, path, appID: appID, kind: .secret, body: json)
        if json != nil { headers[.contentType] = "application/json" }
        return try await service.execute(
            uri: path, method: method, headers: headers, body: json.map { ByteBuffer(bytes: $0) })
    }

    /// Imports `products` (catalog JSON objects) as this app's catalog.
    func importCatalog(_ products: [[String: Any]]) async throws {
        let imported = try await send(
            to: catalog, .put, "/v1/admin/catalog",
            json: try JSONSerialization.data(withJSONObject: ["products": products]))
        guard imported.status == .ok else { throw HarnessFailure("catalog import: \(imported.text)") }
    }

    /// This app's events as the events API lists them (newest first), each a JSON object.
    func events() async throws -> [[String: Any]] {
        let listed = try await send(to: entitlements, .get, "/v1/admin/events?limit=100")
        guard listed.status == .ok else { throw HarnessFailure("events: \(listed.text)") }
        let object = try JSONSerialization.jsonObject(with: Data(listed.text.utf8)) as? [String: Any]
        return object?["events"] as? [[String: Any]] ?? []
    }

    func configureApple(_ body: [String: Any] = [:]) async throws -> any HTTPAnswer {
        var document: [String: Any] = ["bundle_id": Self.bundleID, "environments": ["production", "sandbox"]]
        document.merge(body) { _, new in new }
        return try await send(
            .put, "/v1/admin/stores/apple", json: try JSONSerialization.data(withJSONObject: document))
    }

    func purchase(
        signedTransaction: String, user: String = "user-1", kind: APIKeyKind = .public, atOnce: Bool = false
    ) async throws -> any HTTPAnswer {
        let request = PurchaseRequest(
            appUserID: user, deviceID: "device-1", appVersion: "1.0",
            proof: StoreProofFields(signedTransaction: signedTransaction))
        return try await send(.post, "/v1/purchases", kind: kind, json: try TestJSON.encode(request), atOnce: atOnce)
    }

    func validate(signedTransaction: String) async throws -> any HTTPAnswer {
        try await send(
            .post, "/v1/receipts/validate", kind: .public,
            json: try TestJSON.encode(StoreProofFields(signedTransaction: signedTransaction)))
    }

    /// A signed transaction as the sandbox store would make it.
    func signedTransaction(
        id: String = "2000" + UUID().uuidString.prefix(12),
        productID: String = "com.example.garden.extra",
        type: AppleProductType = .nonConsumable,
        environment: AppleEnvironment = .sandbox,
        bundleID: String = VerifierHarness.bundleID,
        expires: Date? = nil,
        revoked: Date? = nil
    ) throws -> String {
        let now = Date()
        let payload = AppleTransactionPayload(
            transactionId: id, originalTransactionId: id, bundleId: bundleID, productId: productID,
            purchaseDate: now.addingTimeInterval(-60).appleMilliseconds, quantity: 1, type: type.rawValue,
            inAppOwnershipType: "PURCHASED", signedDate: now.appleMilliseconds,
            revocationReason: revoked == nil ? nil : 1, revocationDate: revoked?.appleMilliseconds,
            environment: environment.rawValue, storefront: "USA", currency: "USD", price: 1990
        )
        var withExpiry = payload
        withExpiry.expiresDate = expires?.appleMilliseconds
        return try ES256Signer(chain: chain).sign(withExpiry)
    }
}

/// A harness step that did not go as a test needs it to.
struct HarnessFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
