import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShopkeeperCore
import ShopkeeperModels
import ShopkeeperTestSupport

/// A sandbox store, a catalog, an entitlements service and a verifier trusting the sandbox, as separate processes
/// on the test database: the verifier's real store clients (HTTP, JWS, PKCS#7, JWT auth) against the local App Store
/// and Google Play, and its real signed calls to entitlements.
struct StoreWorld {
    let sandbox: ServiceProcess
    let catalog: ServiceProcess
    let subscriptions: ServiceProcess
    let entitlements: ServiceProcess
    let verifier: ServiceProcess
    let appID = TestEnvironment.uniqueAppID()
    let bundleID: String
    let packageName: String

    /// Starts both processes and runs `body`; they stop afterwards.
    static func run(
        databaseURL: String? = nil, verifierEnvironment: [String: String] = [:],
        sandboxEnvironment: [String: String] = [:],
        _ body: @Sendable (StoreWorld) async throws -> Void
    ) async throws {
        let databaseURL = try databaseURL ?? TestDatabase.url()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID().uuidString)")
        let sandbox = try await ServiceProcess.sandboxStore(state: state, environment: sandboxEnvironment)
        let common = [
            "DATABASE_URL": databaseURL,
            "SHOPKEEPER_INTERNAL_SECRET": TestEnvironment.internalSecret,
        ]
        let catalog = try ServiceProcess("shopkeeper-catalog", environment: common)
        let subscriptions = try ServiceProcess("shopkeeper-subscriptions", environment: common)
        try await subscriptions.waitUntilReady()
        var entitlementsEnvironment = common
        entitlementsEnvironment["SHOPKEEPER_SUBSCRIPTIONS_URL"] = subscriptions.baseURL
        let entitlements = try ServiceProcess("shopkeeper-entitlements", environment: entitlementsEnvironment)
        try await catalog.waitUntilReady()
        try await entitlements.waitUntilReady()
        var environment = [
            "DATABASE_URL": databaseURL,
            "SHOPKEEPER_INTERNAL_SECRET": TestEnvironment.internalSecret,
            "SHOPKEEPER_ENTITLEMENTS_URL": entitlements.baseURL,
            "SHOPKEEPER_SUBSCRIPTIONS_URL": subscriptions.baseURL,
            "SHOPKEEPER_STORE_RETRY_BASE_MS": "5",
            "SHOPKEEPER_STORE_ATTEMPTS": "3",
        ]
        environment.merge(sandbox.storeEnvironment(state: state)) { _, new in new }
        environment.merge(verifierEnvironment) { _, new in new }
        let verifier = try ServiceProcess("shopkeeper-verifier", environment: environment)
        try await verifier.waitUntilReady()
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let world = StoreWorld(
            sandbox: sandbox, catalog: catalog, subscriptions: subscriptions, entitlements: entitlements,
            verifier: verifier,
            bundleID: "com.example.world\(suffix)",
            packageName: "com.example.world\(suffix)")
        do {
            try await body(world)
        } catch {
            throw ServiceProcess.Failure("\(error)\nverifier log: \(verifier.logTail())")
        }
        _ = try? await verifier.terminate()
        _ = try? await entitlements.terminate()
        _ = try? await subscriptions.terminate()
        _ = try? await catalog.terminate()
        _ = try? await sandbox.terminate()
        try? FileManager.default.removeItem(at: state)
    }

    /// A JSON answer.
    struct Answer {
        var status: Int
        var json: [String: Any]
        var headers: HTTPHeaders

        subscript(key: String) -> Any? { json[key] }
        var code: String? { json["code"] as? String }
    }

    /// Calls the sandbox store's controls or store APIs.
    @discardableResult
    func sandbox(_ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil) async throws -> Answer {
        try await Self.send(method, sandbox.baseURL + path, body: body, headers: [])
    }

    /// Calls the verifier as the gateway would, for this world's app.
    @discardableResult
    func verifier(_ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil, kind: APIKeyKind = .public)
        async throws -> Answer
    {
        try await call(verifier, method, path, body, kind: kind)
    }

    /// Calls a service as the gateway would, for this world's app.
    @discardableResult
    func call(
        _ service: ServiceProcess, _ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil,
        kind: APIKeyKind = .public, headers extra: [(String, String)] = []
    ) async throws -> Answer {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let headers = TestEnvironment.signedHeaders(
            method: method.rawValue, pathAndQuery: path, caller: InternalCaller(appID: appID, keyKind: kind), body: data
        )
        return try await Self.send(method, service.baseURL + path, data: data, headers: headers + extra)
    }

    /// Imports `products` (catalog JSON objects) as this world's catalog.
    func importCatalog(_ products: [[String: Any]]) async throws {
        let imported = try await call(catalog, .PUT, "/v1/admin/catalog", ["products": products], kind: .secret)
        guard imported.status == 200 else { throw ServiceProcess.Failure("catalog import: \(imported.json)") }
    }

    /// Gives the app Apple credentials: an App Store Server API key from the sandbox when `apiKey`.
    func configureApple(
        apiKey: Bool, sharedSecret: String? = nil, environments: [String] = ["production", "sandbox"],
        extra: [String: Any] = [:]
    ) async throws {
        var body: [String: Any] = ["bundle_id": bundleID, "environments": environments, "app_apple_id": 1_234_567]
        body.merge(extra) { _, new in new }
        if apiKey {
            let key = try await sandbox(.POST, "/sandbox/apple/api-keys", ["bundle_id": bundleID])
            body["api_key"] = [
                "issuer_id": key["issuer_id"], "key_id": key["key_id"], "private_key": key["private_key"],
            ]
        }
        if let sharedSecret { body["shared_secret"] = sharedSecret }
        let saved = try await verifier(.PUT, "/v1/admin/stores/apple", body, kind: .secret)
        guard saved.status == 200 else { throw ServiceProcess.Failure("apple credentials: \(saved.json)") }
    }

    /// Gives the app Google credentials: a service account made by the sandbox, with `extra` settings
    /// (`consume_consumables`, `push_token`).
    func configureGoogle(environments: [String] = ["production", "sandbox"], extra: [String: Any] = [:]) async throws {
        let account = try await sandbox(.POST, "/sandbox/google/service-accounts", ["package_name": packageName])
        var body: [String: Any] = [
            "package_name": packageName, "service_account": account.json, "environments": environments,
        ]
        body.merge(extra) { _, new in new }
        let saved = try await verifier(.PUT, "/v1/admin/stores/google", body, kind: .secret)
        guard saved.status == 200 else { throw ServiceProcess.Failure("google credentials: \(saved.json)") }
    }

    /// How often the sandbox saw each endpoint.
    func calls() async throws -> [String: Int] {
        (try await sandbox(.GET, "/sandbox/calls")["calls"] as? [String: Int]) ?? [:]
    }

    /// How many different access tokens the sandbox's Play Developer API accepted: only this world's verifier calls
    /// it, while other tests' verifiers polling every app's voided purchases also ask this sandbox for tokens.
    func googleAccessTokensPresented() async throws -> Int? {
        try await sandbox(.GET, "/sandbox/calls")["google_access_tokens_presented"] as? Int
    }

    /// Sends `body` (when given) as JSON to `url` with `headers`: the answer's status, JSON object (empty when it is
    /// none) and headers. Any test's plain HTTP call to a process.
    static func send(_ method: HTTPMethod, _ url: String, body: [String: Any]?, headers: [(String, String)])
        async throws -> Answer
    {
        try await send(
            method, url, data: try body.map { try JSONSerialization.data(withJSONObject: $0) }, headers: headers)
    }

    private static func send(_ method: HTTPMethod, _ url: String, data: Data?, headers: [(String, String)])
        async throws -> Answer
    {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let data {
            request.headers.replaceOrAdd(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: data))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        let json = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any] ?? [:]
        return Answer(status: Int(response.status.code), json: json, headers: response.headers)
    }
}
