import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// Google Play's quantity-based partial refunds of a multi-quantity consumable, end to end: the sandbox store refunds
/// some units (its real-time notification says `refundType` 2, its voided-purchases list gives `voidedQuantity`), the
/// verifier reads the purchase's `refundableQuantity` and hands entitlements the running total, and entitlements
/// claws back only that many units, keeping the purchase until all of them are refunded.
@Suite(.serialized) struct GooglePartialRefundEndToEndTests {
    static let pushToken = "partial-push-token-0123456789abcd"

    static var products: [[String: Any]] {
        [
            [
                "product_id": "gems", "type": "consumable", "consumable_quantity": 1, "review_state": "approved",
                "cleared_for_sale": true, "default_locale": "en", "localizations": ["en": ["name": "Gem"]],
                "store_product_ids": ["play_store": "gem_1"],
            ]
        ]
    }

    /// A world on a database of its own whose verifier polls voided purchases every `pollSeconds`; with `pushes`, the
    /// sandbox pushes its Play notifications to the verifier (with the app's push token).
    func withWorld(
        pollSeconds: String = "600", pushes: Bool = true,
        _ body: @Sendable @escaping (StoreWorld, DatabaseSettings) async throws -> Void
    ) async throws {
        try await StoreWorld.withGoogle(
            products: Self.products, pushToken: Self.pushToken,
            verifierEnvironment: ["SHOPKEEPER_GOOGLE_VOIDED_POLL_SECONDS": pollSeconds], pushToVerifier: pushes, body)
    }

    /// Buys `quantity` gems at the sandbox and has `user` present them; returns the purchase token and order id.
    func buy(_ world: StoreWorld, quantity: Int, user: String) async throws -> (token: String, order: String) {
        let bought = try await world.sandbox(
            .POST, "/sandbox/google/purchases",
            ["package_name": world.packageName, "product_id": "gem_1", "type": "product", "quantity": quantity])
        let token = try #require(bought["purchase_token"] as? String, "\(bought.json)")
        let order = try #require(bought["order_id"] as? String)
        let presented = try await world.verifier(
            .POST, "/v1/purchases", ["app_user_id": user, "purchase_token": token, "product_id": "gem_1"])
        #expect(presented.status == 200, "\(presented.json)")
        return (token, order)
    }

    /// Refunds `units` of the purchase at the sandbox (with its notification unless `notify` is false).
    func refund(_ world: StoreWorld, _ token: String, units: Int, notify: Bool = true) async throws -> [String: Any] {
        let refunded = try await world.sandbox(
            .POST, "/sandbox/google/purchases/\(token)/refund", ["quantity": units, "notify": notify])
        #expect(refunded.status == 200, "\(refunded.json)")
        return refunded.json
    }

    func balance(_ info: [String: Any]) -> Int? {
        (info["consumable_balances"] as? [String: Int])?["gems"]
    }

    func customer(_ world: StoreWorld, _ user: String, until condition: @Sendable ([String: Any]) -> Bool)
        async throws -> [String: Any]
    {
        try await ShopkeeperTestSupport.eventually({ try await world.customerInfo(user) }, until: condition)
    }

    /// The payloads of the app's refund events, oldest first.
    func refundEvents(_ world: StoreWorld) async throws -> [[String: Any]] {
        let answer = try await world.call(world.entitlements, .GET, "/v1/admin/events?limit=200", kind: .secret)
        let events = ((answer["events"] as? [[String: Any]]) ?? []).reversed()
        return events.filter { $0["type"] as? String == "refund" }.compactMap { $0["data"] as? [String: Any] }
    }

    /// The purchase's refunded units and whether it is revoked, as entitlements recorded them.
    func purchase(_ order: String, _ database: DatabaseSettings) async throws -> (refunded: Int, revoked: Bool)? {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                """
                SELECT refunded_quantity, revoked_at IS NOT NULL FROM entitlements.purchases
                WHERE store = 'play_store' AND original_transaction_id = \(order)
                """)
            for try await (refunded, revoked) in rows.decode((Int, Bool).self) { return (refunded, revoked) }
            return nil
        }
    }

    @Test func aPartialRefundClawsBackItsUnitsAndTheLastOneRevokesThePurchase() async throws {
        try await withWorld { world, database in
            let gems = try await buy(world, quantity: 5, user: "ann")
            let bought = try await world.customerInfo("ann")
            #expect(balance(bought) == 5, "\(bought)")

            // Google refunds 2 of the 5 and says so (refundType 2).
            let first = try await refund(world, gems.token, units: 2)
            #expect(first["refunded_quantity"] as? Int == 2 && first["voided"] as? Bool == false, "\(first)")
            let partly = try await customer(world, "ann") { balance($0) == 3 }
            #expect(balance(partly) == 3 && partly["refund_count"] as? Int == 1, "\(partly)")
            let kept = try await purchase(gems.order, database)
            #expect(kept?.refunded == 2 && kept?.revoked == false, "\(String(describing: kept))")
            let events = try await ShopkeeperTestSupport.eventually({ try await refundEvents(world) }) {
                $0.count == 1
            }
            #expect(events.first?["refunded_quantity"] as? Int == 2, "\(events)")
            #expect(events.first?["quantity"] as? Int == 2 && events.first?["balance"] as? Int == 3, "\(events)")
            #expect(events.first?["unrecovered_quantity"] as? Int == 0, "\(events)")

            // The customer spends 2 of the 3 left; then Google refunds the other 3: the purchase is revoked, and of
            // the 3 units only the one left can be taken back.
            let spent = try await world.call(
                world.entitlements, .POST, "/v1/customers/ann/consumables/gems/consume", ["quantity": 2],
                kind: .secret, headers: [("Idempotency-Key", "spend-\(UUID().uuidString)")])
            #expect(spent.status == 200, "\(spent.json)")
            let last = try await refund(world, gems.token, units: 3)
            #expect(last["voided"] as? Bool == true, "\(last)")
            let revoked = try await customer(world, "ann") { $0["refund_count"] as? Int == 2 }
            #expect(balance(revoked) ?? 0 == 0, "\(revoked)")
            let ended = try await purchase(gems.order, database)
            #expect(ended?.refunded == 5 && ended?.revoked == true, "\(String(describing: ended))")
            let all = try await ShopkeeperTestSupport.eventually({ try await refundEvents(world) }) { $0.count == 2 }
            #expect(all.last?["refunded_quantity"] as? Int == 3, "\(all)")
            #expect(all.last?["quantity"] as? Int == 1 && all.last?["unrecovered_quantity"] as? Int == 2, "\(all)")

            // Nothing more can be refunded.
            let again = try await world.sandbox(
                .POST, "/sandbox/google/purchases/\(gems.token)/refund", ["quantity": 1])
            #expect(again.status >= 400 && again.status < 500, "\(again.json)")
        }
    }

    @Test func aPartialRefundFoundByPollingAndNotifiedIsAppliedOnce() async throws {
        try await withWorld(pollSeconds: "0.2", pushes: false) { world, database in
            let gems = try await buy(world, quantity: 5, user: "bo")

            // Google refunds 2 units and tells no one: only the voided-purchases list (with voidedQuantity) says so.
            _ = try await refund(world, gems.token, units: 2, notify: false)
            let partly = try await customer(world, "bo") { balance($0) == 3 }
            #expect(balance(partly) == 3 && partly["refund_count"] as? Int == 1, "\(partly)")
            let inbox = try await ShopkeeperTestSupport.eventually(
                {
                    try await TestDatabase.withClient(database) { client in
                        var found: [String] = []
                        for try await id in try await client.query(
                            "SELECT notification_id FROM verifier.notifications WHERE app_id = \(world.appID)"
                        ).decode(String.self) { found.append(id) }
                        return found
                    }
                }, until: { !$0.isEmpty })
            #expect(inbox.count == 1 && inbox.first?.hasPrefix("voidedpurchases:\(gems.order):partial:") == true)

            // The late notification of the same refund, delivered four times at once: nothing more is taken back.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        _ = try await world.pushGoogleVoided(
                            token: gems.token, order: gems.order, productType: 2, refundType: 2,
                            pushToken: Self.pushToken)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await world.waitForProcessedNotifications(database) == 0)
            let once = try await world.customerInfo("bo")
            #expect(balance(once) == 3 && once["refund_count"] as? Int == 1, "\(once)")
            #expect(try await refundEvents(world).count == 1)

            // The rest, silently too: the poll revokes the purchase.
            _ = try await refund(world, gems.token, units: 3, notify: false)
            let revoked = try await customer(world, "bo") { $0["refund_count"] as? Int == 2 }
            #expect(balance(revoked) ?? 0 == 0, "\(revoked)")
            let ended = try await purchase(gems.order, database)
            #expect(ended?.refunded == 5 && ended?.revoked == true, "\(String(describing: ended))")
            let events = try await refundEvents(world)
            #expect(events.map { $0["refunded_quantity"] as? Int } == [2, 3], "\(events)")
        }
    }
}
