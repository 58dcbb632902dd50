import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// Apple reverses a refund (`REFUND_REVERSED`), told by the sandbox store through the real gateway, verifier and
/// entitlements processes: the purchase stands again, its units are credited back once, and a refund notification
/// arriving after its reversal cannot take the purchase back again.
@Suite(.serialized) struct RefundReversalEndToEndTests {
    /// A consumable of 100 gems and a non-consumable garden that unlocks `garden`.
    static var products: [[String: Any]] {
        [
            [
                "product_id": "gems", "type": "consumable", "consumable_quantity": 100, "review_state": "approved",
                "cleared_for_sale": true, "free": false, "default_locale": "en",
                "store_product_ids": ["app_store": "gems.100"],
                "localizations": ["en": ["name": "Gems", "description": "100 gems"]],
            ],
            [
                "product_id": "garden", "type": "non_consumable", "entitlements": ["garden"],
                "review_state": "approved", "cleared_for_sale": true, "free": false, "default_locale": "en",
                "store_product_ids": ["app_store": "garden.extra"],
                "localizations": ["en": ["name": "Garden", "description": "An extra garden"]],
            ],
        ]
    }

    /// Buys `product` in the sandbox and presents it for `user`; returns the transaction id.
    func buy(_ world: StoreWorld, _ product: String, type: String, for user: String) async throws -> String {
        let bought = try await world.buyApple(product, type: type)
        try await world.presentApple(bought.jws, for: user, ["device_id": "phone"])
        return bought.transactionID
    }

    /// What the customer has: the gems balance, whether `garden` is active, the refund count.
    struct Holdings: Equatable {
        var gems: Int?
        var garden: Bool?
        var refunds: Int?

        init(_ info: [String: Any]) {
            gems = (info["consumable_balances"] as? [String: Any])?["gems"] as? Int
            garden = (info["entitlements"] as? [String: [String: Any]])?["garden"]?["active"] as? Bool
            refunds = info["refund_count"] as? Int
        }

        init(gems: Int?, garden: Bool?, refunds: Int?) {
            (self.gems, self.garden, self.refunds) = (gems, garden, refunds)
        }
    }

    func holdings(_ world: StoreWorld, _ user: String, until expected: Holdings) async throws -> Holdings {
        try await ShopkeeperTestSupport.eventually({ Holdings(try await world.customerInfo(user)) }) { $0 == expected }
    }

    @Test func aReversedRefundRestoresThePurchaseAndItsUnitsOnce() async throws {
        try await NotifiedStoreWorld.run(products: Self.products, apiKey: false) { notified in
            let world = notified.world
            let gems = try await buy(world, "gems.100", type: "Consumable", for: "ana")
            let garden = try await buy(world, "garden.extra", type: "Non-Consumable", for: "ana")
            #expect(
                try await holdings(world, "ana", until: Holdings(gems: 100, garden: true, refunds: 0))
                    == Holdings(gems: 100, garden: true, refunds: 0))

            for id in [gems, garden] {
                try await world.sandbox(.POST, "/sandbox/apple/transactions/\(id)/refund", ["reason": 1])
            }
            let refunded = Holdings(gems: 0, garden: false, refunds: 2)
            #expect(try await holdings(world, "ana", until: refunded) == refunded)

            for id in [gems, garden] {
                let reversed = try await world.sandbox(.POST, "/sandbox/apple/transactions/\(id)/reverse-refund")
                #expect(reversed["result"] as? String == "refund_reversed", "\(reversed.json)")
            }
            let restored = Holdings(gems: 100, garden: true, refunds: 0)
            #expect(try await holdings(world, "ana", until: restored) == restored)
            let types = try await ShopkeeperTestSupport.eventually({ try await world.eventTypes() }) {
                $0.filter { $0 == "refund_reversed" }.count == 2
            }
            #expect(types.filter { $0 == "refund_reversed" }.count == 2, "\(types)")

            // Apple sends every notification again, many times and at once: nothing changes.
            let log = try await world.sandbox(.GET, "/sandbox/notifications?store=apple")
            let ids = ((log["deliveries"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
            #expect(ids.count >= 4, "\(log.json)")
            for id in ids {
                let resent = try await world.sandbox(.POST, "/sandbox/notifications/\(id)/resend?times=4&concurrency=4")
                #expect((resent["statuses"] as? [Int])?.allSatisfy { $0 == 200 } == true, "\(resent.json)")
            }
            try await Task.sleep(for: .seconds(1))
            #expect(Holdings(try await world.customerInfo("ana")) == restored)
            let after = try await world.eventTypes()
            #expect(after.filter { $0 == "refund_reversed" }.count == 2, "\(after)")
            #expect(after.filter { $0 == "refund" }.count == 2, "\(after)")
            let ledger = try await world.call(world.entitlements, .GET, "/v1/customers/ana/history", kind: .secret)
            let reasons = ((ledger["ledger"] as? [[String: Any]]) ?? []).compactMap { $0["reason"] as? String }
            #expect(reasons.sorted() == ["purchase", "refund", "refund_reversed"], "\(ledger.json)")
        }
    }

    @Test func aRefundArrivingAfterItsReversalTakesNothingBack() async throws {
        try await NotifiedStoreWorld.run(products: Self.products, apiKey: false) { notified in
            let world = notified.world
            let gems = try await buy(world, "gems.100", type: "Consumable", for: "ben")
            let before = Holdings(gems: 100, garden: nil, refunds: 0)
            #expect(try await holdings(world, "ben", until: before) == before)

            // The store refunds and reverses while its notifications are held, then delivers them backwards.
            try await world.sandbox(.PUT, "/sandbox/notifications", ["hold": true])
            try await world.sandbox(.POST, "/sandbox/apple/transactions/\(gems)/refund", ["reason": 0])
            try await world.sandbox(.POST, "/sandbox/apple/transactions/\(gems)/reverse-refund")
            let log = try await world.sandbox(.GET, "/sandbox/notifications?store=apple")
            let held = ((log["deliveries"] as? [[String: Any]]) ?? []).filter {
                ($0["transaction_id"] as? String) == gems && ($0["delivered"] as? Bool) == false
            }
            let byType = Dictionary(
                held.compactMap { entry in (entry["type"] as? String).map { ($0, entry["id"] as? String ?? "") } },
                uniquingKeysWith: { first, _ in first })
            let reversal = try #require(byType["REFUND_REVERSED"], "\(log.json)")
            let refund = try #require(byType["REFUND"], "\(log.json)")
            for id in [reversal, refund] {
                let resent = try await world.sandbox(.POST, "/sandbox/notifications/\(id)/resend")
                #expect((resent["statuses"] as? [Int]) == [200], "\(resent.json)")
                #expect(try await processed(notified.database, id))
            }

            #expect(Holdings(try await world.customerInfo("ben")) == before)
            let types = try await world.eventTypes()
            #expect(!types.contains("refund") && !types.contains("refund_reversed"), "\(types)")
            // A refund after the reversal is news again (a second later: store dates are kept in whole seconds, and
            // a revocation dated in the reversal's second counts as the reversed one).
            try await world.sandbox(.PUT, "/sandbox/notifications", ["hold": false])
            try await Task.sleep(for: .milliseconds(1100))
            try await world.sandbox(.POST, "/sandbox/apple/transactions/\(gems)/refund", ["reason": 0])
            let refunded = Holdings(gems: 0, garden: nil, refunds: 1)
            let final = try await holdings(world, "ben", until: refunded)
            let events = try await world.eventTypes()
            #expect(final == refunded, "\(events)")
        }
    }

    /// Whether the verifier has processed the notification (polled for up to 20 seconds).
    func processed(_ database: DatabaseSettings, _ id: String) async throws -> Bool {
        try await ShopkeeperTestSupport.eventually({
            try await TestDatabase.withClient(database) { client in
                let rows = try await client.query(
                    "SELECT state FROM verifier.notifications WHERE notification_id = \(id)")
                for try await state in rows.decode(String.self) { return state == "processed" }
                return false
            }
        }) { $0 }
    }
}
