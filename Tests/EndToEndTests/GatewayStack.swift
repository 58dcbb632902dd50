import Foundation
import ShopkeeperTestSupport

/// The catalog, subscriptions, entitlements, verifier (and, when asked, content) and a gateway in front of them, as
/// built executables on one database: what `scripts/run` starts, without the sandbox store.
struct GatewayStack {
    let catalog: ServiceProcess
    let subscriptions: ServiceProcess
    let entitlements: ServiceProcess
    let verifier: ServiceProcess
    let content: ServiceProcess?
    let gateway: ServiceProcess

    /// Starts each service once the ones it calls are ready; `environment` adds to every service's, `verifierEnvironment`
    /// to the verifier's (the sandbox store's URLs and root, for one), `entitlementsEnvironment` and
    /// `gatewayEnvironment` to theirs. With `content`, the content service keeps its packs in a new temporary folder
    /// that the gateway also reads.
    static func start(
        databaseURL: String, operatorKey: String, environment: [String: String] = [:],
        verifierEnvironment extra: [String: String] = [:],
        entitlementsEnvironment extraEntitlements: [String: String] = [:],
        gatewayEnvironment extraGateway: [String: String] = [:], content withContent: Bool = false
    ) async throws -> GatewayStack {
        let common = ["DATABASE_URL": databaseURL, "SHOPKEEPER_INTERNAL_SECRET": TestEnvironment.internalSecret]
            .merging(environment) { _, new in new }
        let catalog = try ServiceProcess("shopkeeper-catalog", environment: common)
        try await catalog.waitUntilReady()
        let subscriptions = try ServiceProcess("shopkeeper-subscriptions", environment: common)
        try await subscriptions.waitUntilReady()
        var entitlementsEnvironment = common
        entitlementsEnvironment["SHOPKEEPER_SUBSCRIPTIONS_URL"] = subscriptions.baseURL
        let entitlements = try ServiceProcess(
            "shopkeeper-entitlements", environment: entitlementsEnvironment.merging(extraEntitlements) { _, new in new }
        )
        try await entitlements.waitUntilReady()
        var verifierEnvironment = entitlementsEnvironment
        verifierEnvironment["SHOPKEEPER_ENTITLEMENTS_URL"] = entitlements.baseURL
        verifierEnvironment.merge(extra) { _, new in new }
        let verifier = try ServiceProcess("shopkeeper-verifier", environment: verifierEnvironment)
        try await verifier.waitUntilReady()
        var content: ServiceProcess?
        var gatewayEnvironment = common
        if withContent {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "e2e-content-\(UUID().uuidString)")
            var contentEnvironment = common
            contentEnvironment["SHOPKEEPER_ENTITLEMENTS_URL"] = entitlements.baseURL
            contentEnvironment["SHOPKEEPER_CONTENT_DIR"] = folder.path
            let service = try ServiceProcess("shopkeeper-content", environment: contentEnvironment)
            try await service.waitUntilReady()
            gatewayEnvironment["SHOPKEEPER_CONTENT_URL"] = service.baseURL
            gatewayEnvironment["SHOPKEEPER_CONTENT_DIR"] = folder.path
            content = service
        }
        gatewayEnvironment["SHOPKEEPER_OPERATOR_KEY"] = operatorKey
        gatewayEnvironment["SHOPKEEPER_CATALOG_URL"] = catalog.baseURL
        gatewayEnvironment["SHOPKEEPER_VERIFIER_URL"] = verifier.baseURL
        gatewayEnvironment["SHOPKEEPER_ENTITLEMENTS_URL"] = entitlements.baseURL
        gatewayEnvironment["SHOPKEEPER_SUBSCRIPTIONS_URL"] = subscriptions.baseURL
        gatewayEnvironment.merge(extraGateway) { _, new in new }
        let gateway = try ServiceProcess("shopkeeper-gateway", environment: gatewayEnvironment)
        try await gateway.waitUntilReady()
        return GatewayStack(
            catalog: catalog, subscriptions: subscriptions, entitlements: entitlements, verifier: verifier,
            content: content, gateway: gateway)
    }

    /// Starts another gateway replica in front of the same services, with `environment` added to the first one's;
    /// the caller stops it.
    func replica(environment: [String: String]) async throws -> ServiceProcess {
        let replica = try ServiceProcess(
            "shopkeeper-gateway", environment: gateway.environment.merging(environment) { _, new in new })
        try await replica.waitUntilReady()
        return replica
    }

    /// Stops every process gracefully, the gateway first; fails when one does not exit cleanly, after every process is
    /// stopped (one that ignores SIGTERM is killed), so none is left running.
    func stop() async throws {
        var failure: (any Error)?
        for process in [gateway, content, verifier, entitlements, subscriptions, catalog].compactMap(\.self) {
            do {
                try await process.stop()
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }
}
