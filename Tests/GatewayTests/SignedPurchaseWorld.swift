import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperStores
import ShopkeeperTestSupport

/// A gateway whose verifier trusts a test signing chain, an app with Apple configured and a customer token secret:
/// what the customer boundary tests purchase through.
struct SignedPurchaseWorld {
    static let bundleID = "com.example.boundary"

    /// One chain for the whole run, its root written once.
    static let chain: SigningChain = {
        do {
            return try SigningChain.generate(
                SigningChain.Options(name: "Boundary Tests", notValidBefore: Date(timeIntervalSinceNow: -30 * 86_400)))
        } catch {
            fatalError("cannot generate the test chain: \(error)")
        }
    }()

    static func rootFile() throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("shopkeeper-boundary-root-\(ProcessInfo.processInfo.processIdentifier).pem").path
        try chain.root.serializeAsPEM().pemString.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    let gateway: GatewayHarness
    let app: GatewayHarness.TestApp

    /// Runs a gateway stack whose verifier trusts ``chain``, with one app whose Apple store is configured and its
    /// products `pro` and `fertilizer`. The gateway remembers keys (as in production), so `GET`s with a known key take the channel
    /// fast path unless it hands them on. `environment` adds to the gateway's.
    static func run(
        environment: [String: String] = [:], _ body: @Sendable (SignedPurchaseWorld) async throws -> Void
    ) async throws {
        let root = try rootFile()
        try await GatewayHarness.run(
            environment: ["SHOPKEEPER_KEY_CACHE_SECONDS": "60"].merging(environment) { _, new in new },
            verifierEnvironment: ["SHOPKEEPER_APPLE_ROOT_CERTIFICATES": root]
        ) { gateway in
            let app = try await gateway.createApp("Boundary")
            let apple = try JSONSerialization.data(withJSONObject: [
                "bundle_id": bundleID, "environments": ["production", "sandbox"],
            ])
            let configured = try await gateway.send(
                .put, "/v1/admin/stores/apple", bearer: app.secretKey.key, json: apple)
            guard configured.status == .ok else { throw WorldError("configuring Apple: \(configured.text)") }
            let pro = Product(
                productID: "pro", type: .nonConsumable, storeProductIDs: [.appStore: "com.example.boundary.pro"],
                localizations: ["en": .init(name: "Pro")])
            let fertilizer = Product(
                productID: "fertilizer", type: .consumable,
                storeProductIDs: [.appStore: "com.example.boundary.fertilizer"], consumableQuantity: 10,
                localizations: ["en": .init(name: "Fertilizer")])
            let imported = try await gateway.importCatalog([pro, fertilizer], for: app)
            guard imported.status == .ok else { throw WorldError("importing the catalog: \(imported.text)") }
            try await body(SignedPurchaseWorld(gateway: gateway, app: app))
        }
    }

    /// A new signed transaction of the non-consumable `pro`, or with `consumable` of `fertilizer` (10 units).
    /// `accountToken` is the transaction's `appAccountToken` (what StoreKit records when the app buys with one).
    func signedTransaction(consumable: Bool = false, accountToken: String? = nil) throws -> String {
        let id = "2000" + UUID().uuidString.prefix(12)
        let now = Date()
        let payload = AppleTransactionPayload(
            transactionId: id, originalTransactionId: id, bundleId: Self.bundleID,
            productId: consumable ? "com.example.boundary.fertilizer" : "com.example.boundary.pro",
            purchaseDate: now.addingTimeInterval(-60).appleMilliseconds, quantity: 1,
            type: consumable ? "Consumable" : "Non-Consumable", appAccountToken: accountToken,
            inAppOwnershipType: "PURCHASED", signedDate: now.appleMilliseconds, environment: "Sandbox",
            storefront: "USA", currency: "USD", price: 1990)
        return try ES256Signer(chain: Self.chain).sign(payload)
    }

    /// `POST /v1/purchases` for `user` with `bearer`, a customer token when given, and extra headers.
    func purchase(
        _ user: String, jws: String, bearer: String, token: String?, appVersion: String = "1.0",
        headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        let body = PurchaseRequest(
            appUserID: user, deviceID: "device-1", appVersion: appVersion,
            proof: StoreProofFields(signedTransaction: jws))
        return try await gateway.send(
            .post, "/v1/purchases", bearer: bearer, json: try TestJSON.encode(body),
            headers: Self.with(token: token, headers))
    }

    /// `method path` with `bearer` and a customer token when given.
    func send(
        _ method: HTTPRequest.Method, _ path: String, bearer: String, token: String?, json: Data? = nil,
        headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        try await gateway.send(method, path, bearer: bearer, json: json, headers: Self.with(token: token, headers))
    }

    static func with(token: String?, _ headers: HTTPFields) -> HTTPFields {
        var headers = headers
        if let token { headers[HTTPField.Name("Shopkeeper-Customer-Token")!] = token }
        return headers
    }

    /// Creates a customer token secret with the secret key and switches the app to `signed`.
    func enableSigned() async throws -> CreatedCustomerTokenSecret {
        let created = try await gateway.send(
            .post, "/v1/admin/customer-boundary/secrets", bearer: app.secretKey.key)
        guard created.status == .created else { throw WorldError("creating a secret: \(created.text)") }
        let secret = try created.decode(CreatedCustomerTokenSecret.self)
        let switched = try await gateway.send(
            .put, "/v1/admin/customer-boundary", bearer: app.secretKey.key,
            json: try TestJSON.encode(SetCustomerBoundaryRequest(mode: .signed)))
        guard switched.status == .ok else { throw WorldError("switching to signed: \(switched.text)") }
        return secret
    }
}

/// A step of a test world's setup failed.
struct WorldError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
