import Foundation
import Logging
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// The built executables as separate processes on a fresh database: what `scripts/run` starts.
@Suite(.serialized) struct DemoShopEndToEndTests {
    static let operatorKey = "op_e2e_operator_key_0123456789"

    @Test func demoShopThroughTheRealExecutables() async throws {
        try await TestDatabase.withFreshDatabase { database in
            let stack = try await GatewayStack.start(databaseURL: database.url, operatorKey: Self.operatorKey)
            let gateway = stack.gateway

            let envFile = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString).env")
            let seed = try runCLI([
                "seed", "demo", "--gateway-url", gateway.baseURL, "--operator-key", Self.operatorKey, "--env-file",
                envFile.path,
            ])
            #expect(seed.status == 0, "\(seed.output)")
            let values = try Self.parseEnv(envFile)
            #expect(values["SHOPKEEPER_GATEWAY_URL"] == gateway.baseURL)
            let publicKey = try #require(values["SHOPKEEPER_PUBLIC_KEY"])
            let secretKey = try #require(values["SHOPKEEPER_SECRET_KEY"])
            #expect(publicKey.hasPrefix("pk_") && secretKey.hasPrefix("sk_"))

            func shop(_ query: String) async throws -> [String: CatalogItem] {
                let response = try await gateway.get(
                    "/v1/catalog?" + query, headers: [("Authorization", "Bearer \(publicKey)")])
                #expect(response.status == .ok)
                let view = try TestJSON.decode(CatalogView.self, response.body)
                return Dictionary(uniqueKeysWithValues: view.products.map { ($0.productID, $0) })
            }

            let distribution = try await shop("platform=app_store&app_version=1.0&build=distribution")
            #expect(
                Set(distribution.keys) == [
                    "extra_garden", "fertilizer_10", "seeds_sunflower", "seeds_tulip", "greenhouse", "service_year",
                ])
            #expect(distribution["seeds_sunflower"]?.availability == .free)
            #expect(distribution["greenhouse"]?.availability == .requiresUpdate)
            #expect(distribution["fertilizer_10"]?.consumableQuantity == 10)
            #expect(distribution["service_year"]?.duration == "P1Y")
            #expect(distribution["extra_garden"]?.storeProductID == "com.shopkeeper.demo.garden.extra_garden")

            let full = try await shop("platform=play_store&app_version=2.0&variant=full&locale=de-DE")
            #expect(full["seeds_tulip"]?.availability == .included)
            #expect(full["seeds_tulip"]?.storeProductID == nil)
            #expect(full["greenhouse"]?.availability == .purchasable)
            #expect(full["extra_garden"]?.name == "Zusätzlicher Garten")

            let development = try await shop("platform=app_store&app_version=1.0&build=development")
            #expect(development["seeds_orchid"]?.reviewState == .waitingForReview)

            // The CLI exports what it imported.
            let export = try runCLI(["catalog", "export", "--gateway-url", gateway.baseURL, "--secret-key", secretKey])
            #expect(export.status == 0)
            #expect(export.output.contains("\"seeds_orchid\""))

            try await stack.stop()
        }
    }

    @Test func twoCatalogProcessesMigrateAnEmptyDatabaseAtOnce() async throws {
        try await TestDatabase.withFreshDatabase { database in
            let environment = [
                "DATABASE_URL": database.url, "SHOPKEEPER_INTERNAL_SECRET": TestEnvironment.internalSecret,
            ]
            let first = try ServiceProcess("shopkeeper-catalog", environment: environment)
            let second = try ServiceProcess("shopkeeper-catalog", environment: environment)
            async let firstReady: Void = first.waitUntilReady()
            async let secondReady: Void = second.waitUntilReady()
            _ = try await (firstReady, secondReady)
            try await TestDatabase.withClient(database) { client in
                let rows = try await client.query("SELECT count(*)::int FROM catalog.schema_migrations").collect()
                #expect(try rows.first?.decode(Int.self) == 1)
            }
            try await first.stop()
            try await second.stop()
        }
    }

    @Test func aBadSettingStopsTheStartWithItsName() async throws {
        let process = try ServiceProcess("shopkeeper-gateway", environment: ["SHOPKEEPER_RATE_LIMIT_PUBLIC": "lots"])
        let status = try await process.waitForExit(timeout: .seconds(10))
        #expect(status == 78)
        #expect(process.logTail().contains("SHOPKEEPER_RATE_LIMIT_PUBLIC"))
    }

    @Test func anUnreachableDatabaseStopsTheStartWithAClearMessage() async throws {
        let process = try ServiceProcess(
            "shopkeeper-catalog",
            environment: [
                "DATABASE_URL": "postgres://postgres@127.0.0.1:\(try ServiceProcess.freePort())/shopkeeper",
                "SHOPKEEPER_DB_START_TIMEOUT_SECONDS": "2",
            ]
        )
        let status = try await process.waitForExit(timeout: .seconds(20))
        #expect(status == 1)
        #expect(process.logTail().contains("did not answer"))
    }

    static func parseEnv(_ url: URL) throws -> [String: String] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return values
    }
}
