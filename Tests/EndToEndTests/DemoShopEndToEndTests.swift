import Crypto
import Foundation
import Logging
import ShopkeeperCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// The built executables as separate processes on a fresh database: what `scripts/run` starts.
@Suite(.serialized) struct DemoShopEndToEndTests {
    static let operatorKey = "op_e2e_operator_key_0123456789"

    @Test func demoShopThroughTheRealExecutables() async throws {
        try await TestDatabase.withFreshDatabase { database in
            let stack = try await GatewayStack.start(
                databaseURL: database.url, operatorKey: Self.operatorKey, content: true)
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
                    "garden_club",
                ])
            #expect(distribution["garden_club"]?.trialDuration == "P7D")
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

            try await walkTheREADME(gateway: gateway, publicKey: publicKey)

            // The CLI exports what it imported.
            let export = try runCLI(["catalog", "export", "--gateway-url", gateway.baseURL, "--secret-key", secretKey])
            #expect(export.status == 0)
            #expect(export.output.contains("\"seeds_orchid\""))

            try await stack.stop()
        }
    }

    /// What the README walks through on a fresh run works on the seeded demo: claiming the free seed pack makes it
    /// owned, its pack downloads, and the trial starts.
    private func walkTheREADME(gateway: ServiceProcess, publicKey: String) async throws {
        let auth = [("Authorization", "Bearer \(publicKey)")]
        let claim = try await gateway.post(
            "/v1/customers/gardener-1/claims", json: Data(#"{"product_id":"seeds_sunflower"}"#.utf8), headers: auth)
        #expect(claim.status == .created, "\(String(decoding: claim.body, as: UTF8.self))")
        let info = try await gateway.get("/v1/customers/gardener-1", headers: auth)
        let customer = try TestJSON.decode(CustomerInfo.self, info.body)
        #expect(customer.productGrants.map(\.productID) == ["seeds_sunflower"])
        #expect(customer.productGrants.first?.source == "free")
        #expect(customer.entitlements["seeds_sunflower"]?.active == true)
        #expect(customer.entitlements["seeds_sunflower"]?.source == "free")

        // Claiming again changes nothing; a product that must be bought cannot be claimed.
        let again = try await gateway.post(
            "/v1/customers/gardener-1/claims", json: Data(#"{"product_id":"seeds_sunflower"}"#.utf8), headers: auth)
        #expect(again.status == .ok)
        let paid = try await gateway.post(
            "/v1/customers/gardener-1/claims", json: Data(#"{"product_id":"extra_garden"}"#.utf8), headers: auth)
        #expect(paid.status == .forbidden)
        #expect(String(decoding: paid.body, as: UTF8.self).contains("product_not_free"))

        // The claimed pack's manifest, and its files as published.
        let manifestResponse = try await gateway.get(
            "/v1/content/seeds_sunflower?app_user_id=gardener-1&device_id=phone-1&app_version=1.0", headers: auth)
        #expect(manifestResponse.status == .ok, "\(String(decoding: manifestResponse.body, as: UTF8.self))")
        let manifest = try TestJSON.decode(ContentManifest.self, manifestResponse.body)
        #expect(manifest.source == "free_claim")
        #expect(Set(manifest.files.map(\.path)) == ["pack.json", "images/sunflower.svg"])
        for file in manifest.files {
            let download = try await gateway.get(file.url)
            #expect(download.status == .ok)
            #expect(download.body.count == Int(file.size))
            #expect(SHA256.hash(data: download.body).hexString == file.sha256)
        }
        // A pack the customer does not own is not handed out.
        let tulip = try await gateway.get(
            "/v1/content/seeds_tulip?app_user_id=gardener-1&device_id=phone-1&app_version=1.0", headers: auth)
        #expect(tulip.status == .forbidden)

        // The demo's subscription has a trial.
        let trial = try await gateway.post(
            "/v1/customers/gardener-1/trial", json: Data(#"{"device_id":"phone-1"}"#.utf8), headers: auth)
        #expect(trial.status == .created, "\(String(decoding: trial.body, as: UTF8.self))")
        let afterTrial = try TestJSON.decode(
            CustomerInfo.self, try await gateway.get("/v1/customers/gardener-1", headers: auth).body)
        #expect(afterTrial.trial.state == .active)
        #expect(afterTrial.trial.productID == "garden_club")
        #expect(afterTrial.entitlements["garden_club"]?.source == "trial")
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
                // Every one of the catalog's migrations ran (numbered 0001, 0002, ... without gaps: as many rows as
                // the last one's number), whichever process ran it.
                let rows = try await client.query(
                    "SELECT count(*)::int, max(left(name, 4))::int FROM catalog.schema_migrations"
                ).collect()
                let (count, last) = try #require(rows.first).decode((Int, Int).self)
                #expect(count == last && count >= 5, "\(count) migrations, the last numbered \(last)")
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
