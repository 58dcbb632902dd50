import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// Refunds whose real-time notification never came: the verifier polls Play's voided purchases and takes the
/// purchases back, once, also across a restart, and once when the notification does come.
@Suite(.serialized) struct GoogleVoidedPurchasesEndToEndTests {
    static let pushToken = "voided-push-token-0123456789abc"

    static var products: [[String: Any]] {
        [
            [
                "product_id": "garden", "type": "non_consumable", "entitlements": ["garden"],
                "review_state": "approved", "cleared_for_sale": true, "default_locale": "en",
                "localizations": ["en": ["name": "Extra garden"]], "store_product_ids": ["play_store": "extra_garden"],
            ],
            [
                "product_id": "fertilizer", "type": "consumable", "consumable_quantity": 10, "review_state": "approved",
                "cleared_for_sale": true, "default_locale": "en", "localizations": ["en": ["name": "Fertilizer"]],
                "store_product_ids": ["play_store": "fertilizer_10"],
            ],
            [
                "product_id": "pro_monthly", "type": "auto_renewable", "entitlements": ["pro"],
                "review_state": "approved", "cleared_for_sale": true, "default_locale": "en", "group": "pro",
                "localizations": ["en": ["name": "Pro"]], "store_product_ids": ["play_store": "pro_monthly"],
            ],
        ]
    }

    /// A world on a database of its own whose verifier polls voided purchases every 200 ms, with the catalog above
    /// and Google credentials with a push token.
    func withWorld(_ body: @Sendable @escaping (StoreWorld, DatabaseSettings) async throws -> Void) async throws {
        try await StoreWorld.withGoogle(
            products: Self.products, pushToken: Self.pushToken,
            verifierEnvironment: ["SHOPKEEPER_GOOGLE_VOIDED_POLL_SECONDS": "0.2"], body)
    }

    /// Buys `product` at the sandbox and has `user` present it; returns its purchase token and order id.
    func buy(_ world: StoreWorld, _ product: String, user: String, subscription: Bool = false) async throws
        -> (token: String, order: String)
    {
        var purchase: [String: Any] = [
            "package_name": world.packageName, "product_id": product, "type": subscription ? "subscription" : "product",
        ]
        if subscription { purchase["period"] = "P1M" }
        let bought = try await world.sandbox(.POST, "/sandbox/google/purchases", purchase)
        let token = try #require(bought["purchase_token"] as? String, "\(bought.json)")
        let order = try #require(bought["order_id"] as? String)
        var proof: [String: Any] = ["app_user_id": user, "purchase_token": token, "product_id": product]
        if subscription { proof["purchase_kind"] = "subscription" }
        let presented = try await world.verifier(.POST, "/v1/purchases", proof)
        #expect(presented.status == 200, "\(presented.json)")
        return (token, order)
    }

    /// Refunds a Play purchase at the sandbox without sending its notification: only the voided-purchases list says so.
    func refundSilently(_ world: StoreWorld, _ token: String) async throws {
        let refunded = try await world.sandbox(.POST, "/sandbox/google/purchases/\(token)/refund", ["notify": false])
        #expect(refunded["voided"] as? Bool == true, "\(refunded.json)")
    }

    /// Pushes the voided-purchase notification Google would have sent, as Pub/Sub does (the app's `?token=`).
    func pushVoided(_ world: StoreWorld, token: String, order: String, productType: Int) async throws {
        let new = try await world.pushGoogleVoided(
            token: token, order: order, productType: productType, pushToken: Self.pushToken)
        #expect(new)
    }

    func customer(_ world: StoreWorld, _ user: String, until condition: @Sendable ([String: Any]) -> Bool)
        async throws -> [String: Any]
    {
        try await ShopkeeperTestSupport.eventually({ try await world.customerInfo(user) }, until: condition)
    }

    func active(_ info: [String: Any], _ entitlement: String) -> Bool? {
        (info["entitlements"] as? [String: [String: Any]])?[entitlement]?["active"] as? Bool
    }

    /// When the app's voided purchases were last polled (the database's clock).
    func lastPoll(_ world: StoreWorld, _ database: DatabaseSettings) async throws -> Date? {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                "SELECT polled_at FROM verifier.google_voided_cursors WHERE app_id = \(world.appID)")
            for try await polled in rows.decode(Date?.self) { return polled }
            return nil
        }
    }

    /// Waits until the app's voided purchases have been polled after now (the database's clock), so what a poll
    /// would do has been done.
    func waitForAPoll(_ world: StoreWorld, _ database: DatabaseSettings) async throws {
        let now = try await TestDatabase.withClient(database) { client in
            var now = Date()
            for try await date in try await client.query("SELECT now()").decode(Date.self) { now = date }
            return now
        }
        let polled = try await ShopkeeperTestSupport.eventually({ try await lastPoll(world, database) }) {
            ($0 ?? .distantPast) > now
        }
        #expect((polled ?? .distantPast) > now, "no poll after \(now)")
    }

    /// The app's notifications in the verifier's inbox, as "<id> <state>", sorted.
    func inbox(_ world: StoreWorld, _ database: DatabaseSettings) async throws -> [String] {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                "SELECT notification_id, state FROM verifier.notifications WHERE app_id = \(world.appID)")
            var found: [String] = []
            for try await (id, state) in rows.decode((String, String).self) { found.append("\(id) \(state)") }
            return found.sorted()
        }
    }

    /// The app's refund events.
    func refunds(_ world: StoreWorld) async throws -> Int {
        try await world.eventTypes().filter { $0 == "refund" }.count
    }

    @Test func purchasesVoidedSilentlyAreRevokedByThePollerOnceAlsoAfterARestart() async throws {
        try await withWorld { world, database in
            let garden = try await buy(world, "extra_garden", user: "dee")
            _ = try await buy(world, "fertilizer_10", user: "dee")
            let pro = try await buy(world, "pro_monthly", user: "dee", subscription: true)
            let before = try await world.customerInfo("dee")
            #expect(active(before, "garden") == true && active(before, "pro") == true, "\(before)")

            // Google refunds the garden and the subscription and tells no one.
            try await refundSilently(world, garden.token)
            try await refundSilently(world, pro.token)
            let after = try await customer(world, "dee") {
                $0["refund_count"] as? Int == 2 && active($0, "garden") == false && active($0, "pro") == false
            }
            #expect(active(after, "garden") == false && active(after, "pro") == false, "\(after)")
            #expect(after["refund_count"] as? Int == 2, "\(after)")
            // The fertilizer was not refunded.
            #expect((after["consumable_balances"] as? [String: Int])?["fertilizer"] == 10)
            #expect(try await refunds(world) == 2)
            // Each found by polling, handed to the notification inbox under an id of its own, processed once.
            let expected = ["voidedpurchases:\(garden.order) processed", "voidedpurchases:\(pro.order) processed"]
            let found = try await ShopkeeperTestSupport.eventually({ try await inbox(world, database) }) {
                $0 == expected.sorted()
            }
            #expect(found == expected.sorted())

            // A restart reads on from the saved cursor: nothing is applied again.
            _ = try await world.verifier.terminate()
            let verifier = try world.verifier.restarted()
            try await verifier.waitUntilReady()
            try await waitForAPoll(world, database)
            try await waitForAPoll(world, database)
            let later = try await world.customerInfo("dee")
            #expect(later["refund_count"] as? Int == 2, "\(later)")
            #expect(try await refunds(world) == 2)
            _ = try? await verifier.terminate()
        }
    }

    @Test func aPurchaseVoidedByNotificationAndByPollIsRefundedOnce() async throws {
        try await withWorld { world, database in
            // Polled first, then the late notification.
            let garden = try await buy(world, "extra_garden", user: "eli")
            try await refundSilently(world, garden.token)
            _ = try await customer(world, "eli") { $0["refund_count"] as? Int == 1 }
            try await pushVoided(world, token: garden.token, order: garden.order, productType: 2)

            // Notified first, then listed by the next polls.
            let fertilizer = try await buy(world, "fertilizer_10", user: "eli")
            try await refundSilently(world, fertilizer.token)
            try await pushVoided(world, token: fertilizer.token, order: fertilizer.order, productType: 2)
            let refunded = try await customer(world, "eli") {
                $0["refund_count"] as? Int == 2
                    && ($0["consumable_balances"] as? [String: Int])?["fertilizer"] ?? 0 == 0
            }
            #expect(refunded["refund_count"] as? Int == 2, "\(refunded)")
            #expect(active(refunded, "garden") == false)

            // Both notifications are processed and the polls have seen both refunds: still one refund each.
            let pending = try await world.waitForProcessedNotifications(database)
            #expect(pending == 0)
            try await waitForAPoll(world, database)
            let info = try await world.customerInfo("eli")
            #expect(info["refund_count"] as? Int == 2, "\(info)")
            #expect(try await refunds(world) == 2)
        }
    }
}
