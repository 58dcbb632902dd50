import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite("A customer's history")
struct HistoryTests {
    static let template = "/v1/customers/{app_user_id}/history"

    @Test("The history lists transactions, ledger lines, grants, devices and events, newest first")
    func listsWhatHappened() async throws {
        try await EntitlementsHarness.run { harness in
            let garden = EntitlementsFixtures.transaction(product: "garden")
            let anonSeeds = EntitlementsFixtures.transaction(product: "seeds")
            let seeds = EntitlementsFixtures.transaction(product: "seeds")
            _ = try await harness.applied([garden], user: "anon", device: "phone")
            _ = try await harness.applied([anonSeeds], user: "anon", device: "phone")
            _ = try await harness.applied([seeds], user: "member", device: "tablet")
            #expect(try await harness.consume("member", quantity: 2, key: "first-spend").status == .ok)
            #expect(try await harness.grant("vip", to: "member", note: "support case 12").status == .created)
            #expect(try await harness.link("anon", to: "member").status == .ok)

            let response = try await harness.history("anon")
            #expect(response.status == .ok)
            #expect(try response.violations(.get, Self.template) == [])
            let history = try response.json
            let customer = try #require(history["customer"] as? [String: Any])
            #expect(customer["app_user_id"] as? String == "anon")

            let transactions = try #require(history["transactions"] as? [[String: Any]])
            #expect(
                Set(transactions.compactMap { $0["transaction_id"] as? String }) == [
                    garden.transactionID, anonSeeds.transactionID, seeds.transactionID,
                ])
            let ledger = try #require(history["ledger"] as? [[String: Any]])
            // Newest first: the merge moved the anonymous customer's 5 units; before it, the spend and the purchases.
            #expect(
                ledger.compactMap { $0["reason"] as? String } == [
                    "merge_in", "merge_out", "consume", "purchase", "purchase",
                ])
            #expect(ledger.compactMap { $0["delta"] as? Int } == [5, -5, -2, 5, 5])
            #expect(ledger[2]["idempotency_key"] as? String == "first-spend")
            let grants = try #require(history["grants"] as? [[String: Any]])
            #expect(grants.compactMap { $0["state"] as? String } == ["active"])
            #expect(grants.first?["note"] as? String == "support case 12")
            let devices = try #require(history["devices"] as? [[String: Any]])
            #expect(devices.count == 3)
            #expect(Set(devices.compactMap { $0["device_id"] as? String }) == ["phone", "tablet"])
            let events = try #require(history["events"] as? [[String: Any]])
            #expect(
                events.compactMap { $0["type"] as? String } == [
                    "alias", "promotional_grant", "consumed", "consumable_purchase", "consumable_purchase",
                    "initial_purchase",
                ])
            let consumed = try #require(events[2]["payload"] as? [String: Any])
            #expect(consumed["quantity"] as? Int == 2)
            #expect(consumed["balance"] as? Int == 3)
            #expect((customer["consumable_balances"] as? [String: Any])?["seeds"] as? Int == 8)
        }
    }

    @Test("An unknown customer is 404 and is not created; a public key is refused")
    func refusals() async throws {
        try await EntitlementsHarness.run { harness in
            let unknown = try await harness.history("ghost")
            #expect(unknown.status == .notFound)
            #expect(unknown.problemCode == "customer_not_found")
            #expect(try unknown.violations(.get, Self.template) == [])
            #expect(
                try await harness.count(
                    "SELECT count(*) FROM entitlements.aliases WHERE app_id = \(harness.appID)") == 0)

            _ = try await harness.count(
                "SELECT 1::bigint FROM entitlements.customer_for(\(harness.appID), 'known')")
            let publicKey = try await harness.history("known", kind: .public)
            #expect(publicKey.status == .forbidden)
            #expect(publicKey.problemCode == "secret_key_required")
            #expect(try publicKey.violations(.get, Self.template) == [])
            let empty = try await harness.history("known")
            #expect(empty.status == .ok)
            #expect(try empty.violations(.get, Self.template) == [])
            #expect((try empty.json["events"] as? [Any])?.isEmpty == true)
        }
    }
}
