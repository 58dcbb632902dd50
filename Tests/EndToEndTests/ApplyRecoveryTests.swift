import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// A purchase recorded while the entitlements service is down is granted exactly once: by the background retry of
/// pending facts, and a client retry changes nothing more.
@Suite(.serialized) struct ApplyRecoveryTests {
    static var products: [[String: Any]] {
        [
            [
                "product_id": "fertilizer", "type": "consumable", "review_state": "approved", "cleared_for_sale": true,
                "consumable_quantity": 5, "default_locale": "en", "localizations": ["en": ["name": "Fertilizer"]],
            ]
        ]
    }

    @Test func aPurchaseRecordedWhileEntitlementsIsDownIsAppliedExactlyOnce() async throws {
        let environment = ["SHOPKEEPER_APPLY_RETRY_SECONDS": "0.3", "SHOPKEEPER_APPLY_TIMEOUT_SECONDS": "2"]
        // A database of its own: the background retry of any verifier applies any app's pending facts, so a
        // verifier of another test sharing the database would apply this one while its entitlements is down.
        try await TestDatabase.withFreshDatabase { database in
            try await StoreWorld.run(databaseURL: database.url, verifierEnvironment: environment) { world in
                try await world.configureApple(apiKey: false)
                var products = Self.products
                products[0]["store_product_ids"] = ["app_store": "\(world.bundleID).fertilizer"]
                try await world.importCatalog(products)
                let bought = try await world.sandbox(
                    .POST, "/sandbox/apple/transactions",
                    ["bundle_id": world.bundleID, "product_id": "\(world.bundleID).fertilizer", "type": "Consumable"])
                let jws = try #require(bought["signed_transaction"] as? String, "\(bought.json)")
                let purchase: [String: Any] = [
                    "app_user_id": "gardener", "device_id": "phone", "signed_transaction": jws,
                ]

                // Entitlements crashes after the verifier is up: the fact is recorded, the apply cannot happen.
                try await world.entitlements.crash()
                let failed = try await world.verifier(.POST, "/v1/purchases", purchase)
                #expect(failed.status == 503, "\(failed.json)")
                #expect(failed.code == "apply_pending")
                #expect(failed.headers.first(name: "retry-after") != nil)
                let states = try await Self.applyStates(world.appID, database)
                #expect(states == ["pending"], "\(states)")

                // It comes back; the background retry applies the fact without any client help.
                let restarted = try world.entitlements.restarted()
                try await restarted.waitUntilReady()
                let recovered = try await eventually(
                    { try await Self.applyStates(world.appID, database) }, until: { $0 == ["applied"] })
                #expect(recovered == ["applied"])
                let info = try await world.call(restarted, .GET, "/v1/customers/gardener")
                #expect(info["consumable_balances"] as? [String: Int] == ["fertilizer": 5], "\(info.json)")

                // The app's own retry (it never finished the store transaction) gets the same customer, credited once.
                let retried = try await world.verifier(.POST, "/v1/purchases", purchase)
                #expect(retried.status == 200, "\(retried.json)")
                let outcomes = (retried["outcomes"] as? [[String: Any]])?.compactMap { $0["outcome"] as? String }
                #expect(outcomes == ["already_applied"])
                let customer = retried["customer"] as? [String: Any]
                #expect(customer?["consumable_balances"] as? [String: Int] == ["fertilizer": 5])
                #expect(try await Self.ledgerLines(world.appID, database) == 1)
                _ = try? await restarted.terminate()
            }
        }
    }

    static func applyStates(_ appID: String, _ database: DatabaseSettings) async throws -> [String] {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                "SELECT apply_state FROM verifier.transactions WHERE app_id = \(appID) ORDER BY apply_state")
            var states: [String] = []
            for try await state in rows.decode(String.self) { states.append(state) }
            return states
        }
    }

    static func ledgerLines(_ appID: String, _ database: DatabaseSettings) async throws -> Int {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query("SELECT count(*)::int FROM entitlements.ledger WHERE app_id = \(appID)")
            for try await count in rows.decode(Int.self) { return count }
            return -1
        }
    }
}
