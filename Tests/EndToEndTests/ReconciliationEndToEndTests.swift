import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// Store notifications get lost: the sandbox store here sends none, and its clock renews and ends subscriptions in
/// silence. The verifier's reconciliation job notices the periods that ended with no news, asks the store (App
/// Store Server API statuses, Play `subscriptionsv2`), and brings each subscription up to date; one that really
/// ended is not asked about again.
@Suite(.serialized) struct ReconciliationEndToEndTests {
    static var products: [[String: Any]] {
        [
            [
                "product_id": "pro_monthly", "type": "auto_renewable", "entitlements": ["pro"],
                "review_state": "approved", "cleared_for_sale": true, "free": false, "default_locale": "en",
                "group": "pro", "store_product_ids": ["app_store": "pro.monthly", "play_store": "pro_monthly"],
                "localizations": ["en": ["name": "Pro", "description": "Pro"]],
            ]
        ]
    }

    /// A month of the sandbox's subscriptions lasts about eight seconds; nothing is notified; the reconciler
    /// looks every 200 ms at periods that ended two seconds ago or more (our dates are whole seconds, the
    /// sandbox's milliseconds, and its clock ticks every 100 ms), and asks again after 300 ms, 600 ms, ...
    func withWorld(_ body: @Sendable @escaping (StoreWorld, DatabaseSettings) async throws -> Void) async throws {
        try await TestDatabase.withFreshDatabase { database in
            try await StoreWorld.run(
                databaseURL: database.url,
                verifierEnvironment: [
                    "SHOPKEEPER_RECONCILE_INTERVAL_SECONDS": "0.2", "SHOPKEEPER_RECONCILE_AFTER_SECONDS": "2",
                    "SHOPKEEPER_RECONCILE_BACKOFF_SECONDS": "0.3",
                ],
                sandboxEnvironment: ["SHOPKEEPER_SANDBOX_TIME_SCALE": "324000", "SHOPKEEPER_SANDBOX_TICK_MS": "100"]
            ) { world in
                try await world.importCatalog(Self.products)
                try await body(world, database)
            }
        }
    }

    func subscription(_ world: StoreWorld, _ user: String) async throws -> [String: Any] {
        (try await world.customerInfo(user)["subscriptions"] as? [[String: Any]])?.first ?? [:]
    }

    /// The customer's subscription once `condition` holds for it, or after 40 seconds.
    func subscription(
        _ world: StoreWorld, _ user: String, until condition: @Sendable ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        try await ShopkeeperTestSupport.eventually(
            timeout: .seconds(40), { try await subscription(world, user) }, until: condition)
    }

    /// `renews` keeps renewing in the store and `lapses` has auto-renew off, and the server hears of neither: the
    /// reconciler finds the first one's renewal, and the second one's end, after which it asks about it no more.
    func expectReconciled(_ world: StoreWorld, _ database: DatabaseSettings) async throws {
        let first = try await subscription(world, "renews")
        #expect(first["state"] as? String == "active")
        let firstExpiry = try #require(first["expires_at"] as? String)
        // The store renews at the period's end and says nothing; the reconciler asks and finds the renewal.
        let renewed = try await subscription(world, "renews") {
            ($0["expires_at"] as? String ?? "") > firstExpiry && $0["state"] as? String == "active"
        }
        let renewing = try #require(renewed["original_transaction_id"] as? String)
        let renewedRows = try await rows(database, renewing)
        #expect(renewed["state"] as? String == "active", "\(renewedRows)")
        #expect((renewed["expires_at"] as? String ?? "") > firstExpiry, "\(renewed)")
        let events = try await ShopkeeperTestSupport.eventually({ try await world.eventTypes() }) {
            $0.contains("renewal")
        }
        #expect(events.contains("renewal"), "\(events)")

        // The other one ended in the store: asked once it looked stale, it is expired, no longer looks stale, and
        // is asked about no more, though the reconciler keeps looking every 200 ms (a stale one would be asked
        // again within 300, 600, 1200 ms...).
        let ended = try await subscription(world, "lapses") {
            $0["state"] as? String == "expired" && $0["will_renew"] as? Bool == false
        }
        #expect(ended["state"] as? String == "expired", "\(ended)")
        #expect(ended["will_renew"] as? Bool == false, "\(ended)")
        let lapsed = try #require(ended["original_transaction_id"] as? String)
        // The apply is seen before the reconciler records its outcome.
        let asked = try await ShopkeeperTestSupport.eventually({ try await reconciliation(database, lapsed) }) {
            $0.outcome?.contains("period over") == true
        }
        let detail = try await rows(database, lapsed)
        #expect(asked.stale == false, "\(detail)")
        #expect(asked.outcome?.contains("period over") == true, "\(asked)")
        try await Task.sleep(for: .seconds(3))
        #expect(try await reconciliation(database, lapsed) == asked)
        #expect(try await subscription(world, "lapses")["state"] as? String == "expired")
    }

    /// The subscription's row and its reconciliation row, as JSON, for a failure's message.
    func rows(_ database: DatabaseSettings, _ original: String) async throws -> String {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                """
                SELECT row_to_json(s)::text || ' ' || coalesce(
                    (SELECT row_to_json(r)::text FROM verifier.reconciliations r
                     WHERE r.original_transaction_id = \(original)), 'not reconciled')
                FROM subscriptions.subscriptions s WHERE s.original_transaction_id = \(original)
                """)
            for try await text in rows.decode(String?.self) { return text ?? "-" }
            return "none"
        }
    }

    /// The reconciler's record of a subscription and whether it looks stale now.
    struct Reconciliation: Equatable {
        var attempts: Int?
        var outcome: String?
        var stale: Bool
    }

    func reconciliation(_ database: DatabaseSettings, _ original: String) async throws -> Reconciliation {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                """
                SELECT r.attempts, r.outcome,
                       EXISTS (SELECT 1 FROM subscriptions.stale_v1 s WHERE s.original_transaction_id = \(original))
                FROM (SELECT 1) AS one
                LEFT JOIN verifier.reconciliations r ON r.original_transaction_id = \(original)
                """)
            for try await (attempts, outcome, stale) in rows.decode((Int?, String?, Bool).self) {
                return Reconciliation(attempts: attempts, outcome: outcome, stale: stale)
            }
            return Reconciliation(attempts: nil, outcome: nil, stale: false)
        }
    }

    @Test func playRenewalsNobodyWasToldAboutAreFoundAndEndedSubscriptionsAreLeftAlone() async throws {
        try await withWorld { world, database in
            try await world.configureGoogle()
            for user in ["renews", "lapses"] {
                let token = try await world.buyGoogleSubscription()
                try await world.presentGoogleSubscription(token, for: user, ["device_id": "phone"])
                if user == "lapses" {
                    let off = try await world.sandbox(
                        .POST, "/sandbox/google/purchases/\(token)/auto-renew", ["enabled": false])
                    #expect(off.status == 200, "\(off.json)")
                }
            }
            try await expectReconciled(world, database)
        }
    }

    @Test func appStoreRenewalsNobodyWasToldAboutAreFoundAndEndedSubscriptionsAreLeftAlone() async throws {
        try await withWorld { world, database in
            try await world.configureApple(apiKey: true)
            var originals: [String: String] = [:]
            for user in ["renews", "lapses"] {
                let bought = try await world.sandbox(
                    .POST, "/sandbox/apple/transactions",
                    [
                        "bundle_id": world.bundleID, "product_id": "pro.monthly",
                        "type": "Auto-Renewable Subscription", "period": "P1M",
                    ])
                let original = try #require(bought["original_transaction_id"] as? String)
                originals[user] = original
                let jws = try #require(bought["signed_transaction"] as? String)
                let purchase = try await world.verifier(
                    .POST, "/v1/purchases", ["app_user_id": user, "device_id": "phone", "signed_transaction": jws])
                #expect(purchase.status == 200, "\(purchase.json)")
            }
            // The second customer switches auto-renew off in the store; no one tells the server.
            let lapses = try #require(originals["lapses"])
            let off = try await world.sandbox(
                .POST, "/sandbox/apple/subscriptions/\(lapses)/renewal", ["auto_renew": false])
            #expect(off.status == 200, "\(off.json)")

            try await expectReconciled(world, database)
        }
    }
}
