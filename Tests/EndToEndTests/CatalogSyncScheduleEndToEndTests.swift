import Foundation
import PostgresNIO
import ShopkeeperTestSupport
import Testing

/// The scheduled catalog sync, end to end: two gateway replicas with `SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS` in
/// front of the same services apply the store's review-state and price changes once, record the rest as proposed,
/// and the last sync is read back through `GET /v1/admin/catalog/sync/last`.
@Suite struct CatalogSyncScheduleEndToEndTests {
    @Test func twoReplicasApplyReviewStatesAndPricesOncePerIntervalAndCreateNothing() async throws {
        try await CatalogSyncWorld.run { world in
            typealias World = CatalogSyncWorld
            try await world.playSells([
                World.playProduct("garden", prices: [("US", "USD", "2.99")]),
                World.playProduct("beta", state: "DRAFT", prices: [("US", "USD", "1.99")]),
            ])
            try await world.configureGoogle()
            let none = try await world.gateway(.GET, "/v1/admin/catalog/sync/last")
            #expect(none.status == 404, "\(none.json)")
            #expect(none.code == "sync_not_found", "\(none.json)")
            let manual = try await world.sync(dryRun: false, accept: ["new_product"], store: "google")
            #expect(manual.status == 200, "\(manual.json)")
            let last = try await world.gateway(.GET, "/v1/admin/catalog/sync/last?store=google")
            #expect(last["trigger"] as? String == "manual", "\(last.json)")
            #expect(last["applied"] as? Int == 2, "\(last.json)")
            #expect(last["synced_at"] is String, "\(last.json)")

            // At the store: beta is published, garden's price changes, a new product appears.
            try await world.playSells([
                World.playProduct("garden", prices: [("US", "USD", "2.99")]),
                World.playProduct("beta", state: "DRAFT", prices: [("US", "USD", "1.99")]),
                World.playProduct("seeds", prices: [("US", "USD", "0.99")]),
            ])
            try await world.playChanges("beta", ["state": "ACTIVE"])
            try await world.playChanges("garden", ["prices": [["region": "US", "currency": "USD", "price": "3.49"]]])

            // Two replicas with the schedule: an hour apart, so each app is synced once while the test runs.
            let environment = ["SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS": "3600"]
            let first = try await world.stack.replica(environment: environment)
            let second = try await world.stack.replica(environment: environment)
            try await eventually("the scheduled sync has run") {
                let last = try await world.gateway(.GET, "/v1/admin/catalog/sync/last?store=google")
                return last["trigger"] as? String == "scheduled"
            }
            let scheduled = try await world.gateway(.GET, "/v1/admin/catalog/sync/last")
            #expect(scheduled["store"] as? String == "google", "\(scheduled.json)")
            #expect(scheduled["dry_run"] as? Bool == false, "\(scheduled.json)")
            let changes = World.changes(scheduled)
            #expect(changes["review_state:beta"]?["outcome"] as? String == "applied", "\(scheduled.json)")
            #expect(changes["price:garden:US"]?["outcome"] as? String == "applied", "\(scheduled.json)")
            #expect(changes["new_product:seeds"]?["outcome"] as? String == "proposed", "\(scheduled.json)")
            #expect(try await world.gateway(.GET, "/v1/admin/products/seeds").status == 404)
            try await eventually("a distribution build sees the published product") {
                try await world.visibleProducts(build: "distribution", platform: "play_store").contains("beta")
            }

            // Both replicas have looked for due syncs; each app and store was synced once (Apple: passed over, the
            // app has no Apple credentials).
            for replica in [first, second] {
                try await eventually("\(replica.name) has run a round of the schedule") {
                    let metrics = try await replica.metrics(port: replica.metricsPort)
                    return (metrics.value("shopkeeper_poller_runs_total", ["poller": "catalog_sync_schedule"]) ?? 0)
                        >= 1
                }
            }
            let turns = try await TestDatabase.withClient(world.database) { client in
                let rows = try await client.query(
                    """
                    SELECT store, runs::int, coalesce(last_outcome, '') FROM gateway.catalog_sync_schedule
                    WHERE app_id = \(world.appID) ORDER BY store
                    """)
                var turns: [String] = []
                for try await (store, runs, outcome) in rows.decode((String, Int, String).self) {
                    turns.append("\(store) \(runs) \(outcome)")
                }
                return turns
            }
            #expect(turns == ["apple 1 not configured", "google 1 applied 2 of 3"], "\(turns)")

            // The manual answer names its trigger too; the replicas stop cleanly.
            try await first.stop()
            try await second.stop()
            let badStore = try await world.gateway(.GET, "/v1/admin/catalog/sync/last?store=amazon")
            #expect(badStore.status == 400, "\(badStore.json)")
            let publicKey = try await world.gateway(.GET, "/v1/admin/catalog/sync/last", secret: false)
            #expect(publicKey.status == 403, "\(publicKey.json)")
        }
    }
}
