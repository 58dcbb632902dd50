import Foundation
import ShopkeeperTestSupport
import Testing

/// `shopkeeper seed sales` against a gateway whose public-key limit it exceeds at once: it waits and tries again on
/// `429` (and `503`), so the demo's sales are all made.
@Suite struct SeedSalesRetryEndToEndTests {
    static let operatorKey = "op_e2e_seed_sales_retry_0123456789"

    @Test func seedSalesWaitsOutTheRateLimitAndMakesEverySale() async throws {
        try await TestDatabase.withFreshDatabase { database in
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: state) }
            let sandbox = try await ServiceProcess.sandboxStore(state: state)
            // Four purchases at once from the seeder, with a public key allowed two a second: 429s are certain.
            let stack = try await GatewayStack.start(
                databaseURL: database.url, operatorKey: Self.operatorKey,
                verifierEnvironment: sandbox.storeEnvironment(state: state),
                gatewayEnvironment: [
                    "SHOPKEEPER_RATE_LIMIT_PUBLIC": "2/2", "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT": "2/2",
                ])
            let shop = try SeededDemoShop.seed(
                gatewayURL: stack.gateway.baseURL, operatorKey: Self.operatorKey, sandboxURL: sandbox.baseURL,
                envFile: state.appendingPathComponent("local.env"))
            let environment = shop.cliEnvironment.merging(["SHOPKEEPER_PUBLIC_KEY": shop.publicKey]) { _, new in new }
            let sales = try runCLI(["seed", "sales", "--customers", "4", "--weeks", "2"], environment: environment)
            #expect(sales.status == 0, "\(sales.output)")
            #expect(sales.output.contains("Demo sales: 4 customers"), "\(sales.output)")
            // The gateway did refuse some (its request counter has 429s).
            let metrics = try await stack.gateway.metrics(port: stack.gateway.metricsPort)
            #expect(
                metrics.samples.contains { $0.labels.values.contains("429") && $0.value > 0 },
                "no 429 in the gateway's metrics")
            try await stack.stop()
            _ = try? await sandbox.terminate()
        }
    }
}
