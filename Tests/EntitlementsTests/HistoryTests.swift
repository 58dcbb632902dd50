import Foundation
import HummingbirdTesting
import NIOCore
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

    @Test("The history holds the periods of the customer's subscriptions: their timeline")
    func listsSubscriptionPeriods() async throws {
        try await EntitlementsHarness.run { harness in
            let original = UUID().uuidString
            let day: TimeInterval = 86_400
            let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 40 * day).rounded(.down))
            var first = EntitlementsFixtures.transaction(
                original, product: "pro_monthly", original: original, expires: start.addingTimeInterval(30 * day))
            first.purchaseDate = start
            var renewal = EntitlementsFixtures.transaction(
                product: "pro_monthly", original: original, expires: start.addingTimeInterval(60 * day))
            renewal.purchaseDate = start.addingTimeInterval(30 * day)
            // As the verifier does: the subscriptions service gets the facts, entitlements the purchase.
            let path = "/internal/v1/apply"
            let facts = try TestJSON.encode(
                SubscriptionApplyRequest(source: .purchase, transactions: [first, renewal]))
            let applied = try await harness.subscriptions.execute(
                uri: path, method: .post, headers: .signed(.post, path, appID: harness.appID, body: facts),
                body: ByteBuffer(bytes: facts))
            #expect(applied.status == .ok, "\(String(buffer: applied.body))")
            _ = try await harness.applied([first, renewal], user: "subscriber")

            let response = try await harness.history("subscriber")
            #expect(try response.violations(.get, Self.template) == [])
            let periods = try #require(try response.json["subscription_periods"] as? [[String: Any]])
            #expect(periods.map { $0["transaction_id"] as? String } == [renewal.transactionID, first.transactionID])
            #expect(periods.allSatisfy { $0["original_transaction_id"] as? String == original })
            #expect(
                periods.allSatisfy {
                    $0["period_type"] as? String == "normal" && $0["product_id"] as? String == "pro_monthly"
                })
            #expect(periods.last?["starts_at"] as? String == start.formatted(.iso8601))
            #expect(periods.first?["ends_at"] as? String == start.addingTimeInterval(60 * day).formatted(.iso8601))
            // Another customer's history holds none of them.
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "other")
            let other = try await harness.history("other")
            #expect((try other.json["subscription_periods"] as? [Any])?.isEmpty == true)
        }
    }
}
