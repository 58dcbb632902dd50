import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// An experiment end to end, through the real services and the sandbox App Store: a customer served variant `b`
/// buys; the purchase's event names the experiment and the variant, and the purchase counts in `b`'s results; the
/// store refunds it; the refund's event is stamped alike and `b`'s revenue goes back down. A customer never exposed
/// has nothing stamped.
@Suite(.serialized) struct ExperimentEndToEndTests {
    /// Offerings `standard` (the default: the garden) and `gems`, compared 1:1 by the experiment `price`.
    func startExperiment(_ world: StoreWorld) async throws {
        let offerings: [String: Any] = [
            "offerings": [
                [
                    "offering_id": "standard", "default": true,
                    "packages": [["package_id": "$garden", "product_id": "garden"]],
                ],
                ["offering_id": "gems", "packages": [["package_id": "$gems", "product_id": "gems"]]],
            ]
        ]
        let written = try await world.call(world.catalog, .PUT, "/v1/admin/offerings", offerings, kind: .secret)
        #expect(written.status == 200, "\(written.json)")
        let experiment: [String: Any] = [
            "experiment_id": "price", "name": "Garden or gems first",
            "variants": [
                ["key": "a", "offering_id": "standard", "weight": 1],
                ["key": "b", "offering_id": "gems", "weight": 1],
            ],
        ]
        let created = try await world.call(world.catalog, .POST, "/v1/admin/experiments", experiment, kind: .secret)
        #expect(created.status == 201, "\(created.json)")
        let started = try await world.call(world.catalog, .POST, "/v1/admin/experiments/price/start", kind: .secret)
        #expect(started.status == 200, "\(started.json)")
    }

    /// The first of `shopper_0`, `shopper_1`, ... the offerings answer serves `variant`; the answer exposes it.
    func customer(served variant: String, in world: StoreWorld) async throws -> String {
        for index in 0..<200 {
            let user = "shopper_\(index)"
            let answer = try await world.call(
                world.catalog, .GET, "/v1/offerings?app_user_id=\(user)&platform=app_store&app_version=1.0")
            #expect(answer.status == 200, "\(answer.json)")
            if (answer["experiment"] as? [String: Any])?["variant"] as? String == variant { return user }
        }
        throw ServiceProcess.Failure("no customer of 200 was served \(variant)")
    }

    /// The app's events of `type` for `user`, newest first.
    func events(_ world: StoreWorld, _ type: String, of user: String) async throws -> [[String: Any]] {
        let answer = try await world.call(world.entitlements, .GET, "/v1/admin/events?limit=200", kind: .secret)
        return ((answer["events"] as? [[String: Any]]) ?? []).filter {
            $0["type"] as? String == type && $0["app_user_id"] as? String == user
        }
    }

    /// The `experiments` stamped on the customer's first event of `type`, once there is one.
    func stamp(_ world: StoreWorld, _ type: String, of user: String) async throws -> [[String: Any]]? {
        let found = try await ShopkeeperTestSupport.eventually({ try await events(world, type, of: user) }) {
            !$0.isEmpty
        }
        let data = try #require(found.first?["data"] as? [String: Any], "no \(type) event for \(user)")
        return data["experiments"] as? [[String: Any]]
    }

    /// Variant `key`'s figures in the experiment's results.
    func results(_ world: StoreWorld, variant key: String) async throws -> [String: Any] {
        let report = try await world.call(
            world.catalog, .GET, "/v1/admin/reports/experiments/price", kind: .secret)
        #expect(report.status == 200, "\(report.json)")
        let variants = (report["variants"] as? [[String: Any]]) ?? []
        return try #require(variants.first { $0["key"] as? String == key }, "\(report.json)")
    }

    /// The total revenue of a variant's figures in USD (0 when there is none).
    static func revenue(_ figures: [String: Any]) -> Double {
        let revenue = (figures["revenue"] as? [[String: Any]]) ?? []
        return revenue.first { $0["currency"] as? String == "USD" }?["total"] as? Double ?? 0
    }

    @Test func aVariantsPurchaseAndItsRefundAreStampedAndCountedInItsResults() async throws {
        try await NotifiedStoreWorld.run(products: RefundReversalEndToEndTests.products, apiKey: false) { notified in
            let world = notified.world
            try await startExperiment(world)
            let buyer = try await customer(served: "b", in: world)
            // The exposure a minute before the purchase: the sandbox's clock and the database's are one machine's,
            // but a purchase date is in milliseconds and an exposure in microseconds.
            try await TestDatabase.withClient(notified.database) { client in
                try await client.query(
                    """
                    UPDATE catalog.experiment_exposures SET first_exposed_at = first_exposed_at - interval '1 minute'
                    WHERE app_id = \(world.appID)
                    """)
            }

            let bought = try await world.buyApple("garden.extra", type: "Non-Consumable")
            try await world.presentApple(bought.jws, for: buyer, ["device_id": "phone"])
            let purchaseStamp = try #require(try await stamp(world, "initial_purchase", of: buyer))
            #expect(purchaseStamp.count == 1)
            #expect(purchaseStamp.first?["id"] as? String == "price")
            #expect(purchaseStamp.first?["variant"] as? String == "b")
            #expect(purchaseStamp.first?["exposed_at"] as? String != nil)
            let counted = try await results(world, variant: "b")
            #expect(counted["purchases"] as? Int == 1, "\(counted)")
            #expect(counted["refunds"] as? Int == 0, "\(counted)")
            #expect(abs(Self.revenue(counted) - 0.99) < 1e-9, "\(counted)")

            // A customer the experiment never served buys too: nothing is stamped, nothing counted.
            let stranger = try await world.buyApple("garden.extra", type: "Non-Consumable")
            try await world.presentApple(stranger.jws, for: "stranger", ["device_id": "tablet"])
            #expect(try await stamp(world, "initial_purchase", of: "stranger") == nil)

            // The store refunds the buyer: the refund is stamped with b, and b's revenue is gone.
            let refunded = try await world.sandbox(
                .POST, "/sandbox/apple/transactions/\(bought.transactionID)/refund", ["reason": 1])
            #expect(refunded.status == 200, "\(refunded.json)")
            let refundStamp = try #require(try await stamp(world, "refund", of: buyer))
            #expect(refundStamp.first?["variant"] as? String == "b")
            let after = try await ShopkeeperTestSupport.eventually({ try await results(world, variant: "b") }) {
                $0["refunds"] as? Int == 1
            }
            #expect(after["purchases"] as? Int == 1, "\(after)")
            #expect(Self.revenue(after) == 0, "\(after)")
            let other = try await results(world, variant: "a")
            #expect(other["purchases"] as? Int == 0, "\(other)")
        }
    }
}
