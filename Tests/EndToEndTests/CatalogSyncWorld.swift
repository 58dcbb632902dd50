import Foundation
import NIOHTTP1
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// The sandbox store as App Store Connect, every service and the gateway, and one app with its keys: the world of
/// the catalog sync's end-to-end tests, where every call goes through the gateway as an operator's would.
struct CatalogSyncWorld {
    static let operatorKey = "op_e2e_catalog_sync_0123456789"

    let sandbox: ServiceProcess
    let stack: GatewayStack
    /// The database every service of the world uses.
    let database: DatabaseSettings
    let secretKey: String
    let publicKey: String
    let appID: String
    let bundleID = "com.example.sync\(UUID().uuidString.prefix(8).lowercased())"

    /// Starts the world, runs `body`, stops it.
    static func run(_ body: @Sendable (CatalogSyncWorld) async throws -> Void) async throws {
        try await TestDatabase.withFreshDatabase { database in
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: state) }
            let sandbox = try await ServiceProcess.sandboxStore(state: state)
            let stack = try await GatewayStack.start(
                databaseURL: database.url, operatorKey: operatorKey,
                verifierEnvironment: sandbox.storeEnvironment(state: state))
            let app = try await StoreWorld.send(
                .POST, stack.gateway.baseURL + "/operator/v1/apps", body: ["name": "Sync"],
                headers: [("authorization", "Bearer \(operatorKey)")])
            let appID = try #require(app["app_id"] as? String, "\(app.json)")
            func key(_ kind: String) async throws -> String {
                let created = try await StoreWorld.send(
                    .POST, stack.gateway.baseURL + "/operator/v1/apps/\(appID)/keys", body: ["kind": kind],
                    headers: [("authorization", "Bearer \(operatorKey)")])
                return try #require(created["key"] as? String, "\(created.json)")
            }
            let world = CatalogSyncWorld(
                sandbox: sandbox, stack: stack, database: database, secretKey: try await key("secret"),
                publicKey: try await key("public"), appID: appID)
            do {
                try await body(world)
            } catch {
                throw ServiceProcess.Failure("\(error)\nverifier log: \(stack.verifier.logTail())")
            }
            try await stack.stop()
            _ = try? await sandbox.terminate()
        }
    }

    /// Calls the gateway with the secret key (`secret` false: the public key).
    @discardableResult
    func gateway(_ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil, secret: Bool = true)
        async throws -> StoreWorld.Answer
    {
        try await StoreWorld.send(
            method, stack.gateway.baseURL + path, body: body,
            headers: [("authorization", "Bearer \(secret ? secretKey : publicKey)")])
    }

    /// Calls the sandbox store.
    @discardableResult
    func sandbox(_ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil) async throws -> StoreWorld.Answer {
        try await StoreWorld.send(method, sandbox.baseURL + path, body: body, headers: [])
    }

    /// What App Store Connect sells: `PUT /sandbox/apple/products` (a product left out is deleted at the store).
    func storeSells(_ products: [[String: Any]]) async throws {
        let put = try await sandbox(.PUT, "/sandbox/apple/products", ["products": products])
        guard put.status == 200 else { throw ServiceProcess.Failure("sandbox products: \(put.json)") }
    }

    /// The app's Apple credentials with `connectKey` as its App Store Connect API key (none when `nil`).
    func configureApple(connectKey: [String: Any]?) async throws {
        var body: [String: Any] = ["bundle_id": bundleID, "environments": ["production", "sandbox"]]
        if let connectKey { body["connect_api_key"] = connectKey }
        let saved = try await gateway(.PUT, "/v1/admin/stores/apple", body)
        guard saved.status == 200 else { throw ServiceProcess.Failure("apple credentials: \(saved.json)") }
    }

    /// An App Store Connect API key the sandbox issued for this app's team.
    func issueConnectKey() async throws -> [String: Any] {
        let key = try await sandbox(.POST, "/sandbox/apple/api-keys", ["bundle_id": bundleID])
        return [
            "issuer_id": key["issuer_id"] ?? "", "key_id": key["key_id"] ?? "", "private_key": key["private_key"] ?? "",
        ]
    }

    /// `POST /v1/admin/catalog/sync` with `store` (App Store Connect unless told).
    func sync(dryRun: Bool, accept: [String] = [], store: String = "apple") async throws -> StoreWorld.Answer {
        try await gateway(.POST, "/v1/admin/catalog/sync", ["store": store, "dry_run": dryRun, "accept": accept])
    }

    /// The change ids `shopkeeper catalog sync --store <store> --dry-run` prints (it must succeed).
    func cliDryRunChangeIDs(store: String) throws -> Set<String> {
        let cli = try runCLI(
            ["catalog", "sync", "--store", store, "--dry-run"],
            environment: ["SHOPKEEPER_GATEWAY_URL": stack.gateway.baseURL, "SHOPKEEPER_SECRET_KEY": secretKey])
        guard cli.status == 0 else { throw ServiceProcess.Failure("catalog sync: \(cli.output)") }
        let printed = try JSONSerialization.jsonObject(with: Data(cli.output.utf8)) as? [String: Any]
        return Set(((printed?["changes"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
    }

    /// The changes of a sync answer, by id.
    static func changes(_ answer: StoreWorld.Answer) -> [String: [String: Any]] {
        Dictionary(
            ((answer["changes"] as? [[String: Any]]) ?? []).map { ($0["id"] as? String ?? "", $0) },
            uniquingKeysWith: { first, _ in first })
    }

    /// The product ids a build of the app on `platform` sees in the catalog.
    func visibleProducts(build: String, platform: String = "app_store") async throws -> Set<String> {
        let catalog = try await gateway(
            .GET, "/v1/catalog?platform=\(platform)&app_version=1.0&build=\(build)", secret: false)
        return Set(((catalog["products"] as? [[String: Any]]) ?? []).compactMap { $0["product_id"] as? String })
    }

    /// A sandbox App Store purchase of `storeProductID`, sent through `POST /v1/purchases`.
    func buy(_ storeProductID: String, user: String) async throws {
        let bought = try await sandbox(
            .POST, "/sandbox/apple/transactions",
            ["bundle_id": bundleID, "product_id": storeProductID, "type": "Non-Consumable", "environment": "Sandbox"])
        let jws = try #require(bought["signed_transaction"] as? String, "\(bought.json)")
        let purchased = try await gateway(
            .POST, "/v1/purchases", ["app_user_id": user, "signed_transaction": jws], secret: false)
        guard purchased.status == 200 else { throw ServiceProcess.Failure("purchase: \(purchased.json)") }
    }
}
