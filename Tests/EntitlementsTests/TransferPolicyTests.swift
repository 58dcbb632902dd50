import Foundation
import HummingbirdTesting
import PostgresNIO
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Sets an app's transfer policy (and other settings) in the database, as the settings API stores it.
func setPolicy(_ policy: String, deviceLimit: Int = 25, appID: String) async throws {
    try await TestDatabase.withClient { client in
        try await client.query(
            """
            INSERT INTO entitlements.app_settings (app_id, transfer_policy, device_limit) VALUES (\(appID), \(policy), \(deviceLimit))
            ON CONFLICT (app_id) DO UPDATE SET transfer_policy = excluded.transfer_policy,
                device_limit = excluded.device_limit
            """)
    }
}

@Suite("Transfer policy: a purchase presented by another customer")
struct TransferPolicyTests {
    @Test("transfer: the purchase moves, both sides get an event; consumable units stay with their first presenter")
    func transfer() async throws {
        try await EntitlementsHarness.run { harness in
            let garden = EntitlementsFixtures.transaction(product: "garden")
            let seeds = EntitlementsFixtures.transaction(product: "seeds")
            _ = try await harness.applied([garden, seeds], user: "old-phone")
            let moved = try await harness.applied([garden], user: "new-phone", device: "device-2")
            #expect(moved.outcomes.map(\.outcome) == [.transferred])
            #expect(moved.customer?.entitlements["extra_garden"]?.active == true)
            #expect(moved.customer?.consumableBalances == [:])
            let units = try await harness.apply([seeds], user: "new-phone", device: "device-2")
            #expect(units.status == .conflict)
            #expect(units.problemCode == "already_owned_by_other_customer")

            let old = try await harness.info("old-phone")
            #expect(old.entitlements.isEmpty)
            #expect(old.nonSubscriptionPurchases.map(\.productID) == ["seeds"])
            #expect(old.consumableBalances == ["seeds": 5])

            let events = try await TestDatabase.withClient { client in
                let rows = try await client.query(
                    """
                    SELECT e.app_user_id FROM entitlements.events e
                    WHERE e.app_id = \(harness.appID) AND e.type = 'transfer' ORDER BY e.app_user_id
                    """)
                var users: [String] = []
                for try await user in rows.decode(String.self) { users.append(user) }
                return users
            }
            #expect(events == ["new-phone", "old-phone"])
        }
    }

    /// Sets the app's transfer policy, applies a purchase of `garden` for the customer `first`, and expects `second`
    /// presenting it to be refused (409 `already_owned_by_other_customer`); returns the purchase.
    static func gardenRefusedToSecond(policy: String, harness: EntitlementsHarness) async throws -> StoreTransaction {
        try await setPolicy(policy, appID: harness.appID)
        let garden = EntitlementsFixtures.transaction(product: "garden")
        _ = try await harness.applied([garden], user: "first")
        let refused = try await harness.apply([garden], user: "second")
        #expect(refused.status == .conflict)
        #expect(refused.problemCode == "already_owned_by_other_customer")
        return garden
    }

    @Test("keep_with_original: 409 already_owned_by_other_customer and nothing changes")
    func keepWithOriginal() async throws {
        try await EntitlementsHarness.run { harness in
            let garden = try await Self.gardenRefusedToSecond(policy: "keep_with_original", harness: harness)
            #expect(try await harness.info("first").entitlements["extra_garden"]?.active == true)
            #expect(try await harness.info("second").entitlements.isEmpty)
            // The owner presenting it again is fine.
            #expect(try await harness.apply([garden], user: "first").status == .ok)
        }
    }

    @Test("transfer_if_no_active: moves an expired or revoked purchase, keeps an active one")
    func transferIfNoActive() async throws {
        try await EntitlementsHarness.run { harness in
            _ = try await Self.gardenRefusedToSecond(policy: "transfer_if_no_active", harness: harness)

            let expired = EntitlementsFixtures.transaction(
                product: "pro_monthly", expires: Date().addingTimeInterval(-3600))
            _ = try await harness.applied([expired], user: "first")
            let moved = try await harness.applied([expired], user: "second")
            #expect(moved.outcomes.map(\.outcome) == [.transferred])

            var revoked = EntitlementsFixtures.transaction(product: "garden")
            _ = try await harness.applied([revoked], user: "first")
            revoked.revocationDate = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            _ = try await harness.applied([revoked], user: nil, device: nil, source: .validation)
            let movedRevoked = try await harness.applied([revoked], user: "second")
            #expect(movedRevoked.outcomes.map(\.outcome) == [.transferred])
            #expect(movedRevoked.customer?.entitlements["extra_garden"]?.active == false)
        }
    }
}
