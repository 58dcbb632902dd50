import Foundation
import ShopkeeperDatabase
import ShopkeeperTestSupport

/// A ``StoreWorld`` on a database of its own behind a real gateway, to which the sandbox store sends its App Store
/// Server Notifications: what happens in the store reaches the services the way Apple's notifications would.
struct NotifiedStoreWorld: Sendable {
    static let operatorKey = "op_e2e_operator_key_0123456789"

    let world: StoreWorld
    let gateway: ServiceProcess
    let database: DatabaseSettings

    /// Runs `body` with `products` (catalog import documents) in the catalog and the app's Apple credentials saved:
    /// with an App Store Server API key from the sandbox when `apiKey`, and `appleSettings` added; the verifier gets
    /// `verifierEnvironment` too.
    static func run(
        products: [[String: Any]], apiKey: Bool, appleSettings: [String: Any] = [:],
        verifierEnvironment: [String: String] = [:], sandboxEnvironment: [String: String] = [:],
        _ body: @Sendable @escaping (NotifiedStoreWorld) async throws -> Void
    ) async throws {
        // Carried into the processes' closures as JSON (a dictionary of `Any` is not `Sendable`).
        let catalog = try JSONSerialization.data(withJSONObject: products)
        let settings = try JSONSerialization.data(withJSONObject: appleSettings)
        try await TestDatabase.withFreshDatabase { database in
            try await StoreWorld.run(
                databaseURL: database.url, verifierEnvironment: verifierEnvironment,
                sandboxEnvironment: sandboxEnvironment
            ) { world in
                let gateway = try await world.startGateway(databaseURL: database.url, operatorKey: Self.operatorKey)
                let target = try await world.sandbox(
                    .PUT, "/sandbox/notifications", ["apple_url": gateway.baseURL + "/v1/notifications/apple"])
                guard target.status == 200 else { throw ServiceProcess.Failure("notification target: \(target.json)") }
                try await world.importCatalog(
                    (try JSONSerialization.jsonObject(with: catalog) as? [[String: Any]]) ?? [])
                try await world.configureApple(
                    apiKey: apiKey, extra: (try JSONSerialization.jsonObject(with: settings) as? [String: Any]) ?? [:])
                do {
                    try await body(NotifiedStoreWorld(world: world, gateway: gateway, database: database))
                } catch {
                    throw ServiceProcess.Failure("\(error)\ngateway log: \(gateway.logTail())")
                }
                _ = try? await gateway.terminate()
            }
        }
    }
}

extension StoreWorld {
    /// The customer's info (`GET /v1/customers/{user}` of the entitlements service).
    func customerInfo(_ user: String) async throws -> [String: Any] {
        try await call(entitlements, .GET, "/v1/customers/\(user)").json
    }

    /// The types of the app's events, oldest first.
    func eventTypes() async throws -> [String] {
        let answer = try await call(entitlements, .GET, "/v1/admin/events?limit=200", kind: .secret)
        return ((answer["events"] as? [[String: Any]]) ?? []).compactMap { $0["type"] as? String }.reversed()
    }
}
