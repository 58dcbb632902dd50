import Foundation
import HummingbirdTesting
import ShopkeeperCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite("Applying verified transactions")
struct ApplyTests {
    @Test("A non-consumable grants its entitlements with no end, once")
    func nonConsumableGrants() async throws {
        try await EntitlementsHarness.run { harness in
            let purchase = EntitlementsFixtures.transaction(product: "garden")
            let first = try await harness.applied([purchase])
            #expect(first.outcomes.map(\.outcome) == [.granted])
            #expect(first.outcomes.first?.productID == "garden")
            let customer = try #require(first.customer)
            let grant = try #require(customer.entitlements["extra_garden"])
            #expect(grant.active)
            #expect(grant.expiresAt == nil)
            #expect(grant.productID == "garden")
            #expect(grant.store == .appStore)
            #expect(grant.environment == .sandbox)
            #expect(customer.nonSubscriptionPurchases.map(\.transactionID) == [purchase.transactionID])

            let again = try await harness.applied([purchase])
            #expect(again.outcomes.map(\.outcome) == [.alreadyApplied])
            #expect(again.customer == customer.with(lastSeen: again.customer?.lastSeen))
            #expect(try await harness.info("user-1").entitlements["extra_garden"]?.active == true)
        }
    }

    @Test("A consumable credits product quantity times purchase quantity, once per transaction")
    func consumableCredits() async throws {
        try await EntitlementsHarness.run { harness in
            let purchase = EntitlementsFixtures.transaction(product: "seeds", quantity: 3)
            let first = try await harness.applied([purchase])
            #expect(first.outcomes.map(\.outcome) == [.credited])
            #expect(first.customer?.consumableBalances == ["seeds": 15])
            let again = try await harness.applied([purchase])
            #expect(again.outcomes.map(\.outcome) == [.alreadyApplied])
            #expect(again.customer?.consumableBalances == ["seeds": 15])
            let second = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")])
            #expect(second.customer?.consumableBalances == ["seeds": 20])
        }
    }

    @Test("Subscription purchases are recorded as such and grant while their period lasts")
    func subscriptionsRecorded() async throws {
        try await EntitlementsHarness.run { harness in
            let yearly = EntitlementsFixtures.transaction(product: "pro_year")
            let response = try await harness.applied([yearly])
            #expect(response.outcomes.map(\.outcome) == [.subscriptionRecorded])
            let pro = try #require(response.customer?.entitlements["pro"])
            #expect(pro.active && pro.source == "subscription")
            // A one-year non-renewing purchase: the end is a year after the purchase.
            let ends = try #require(pro.expiresAt)
            #expect(abs(ends.timeIntervalSince(yearly.purchaseDate) - 365 * 86_400) < 2 * 86_400)
            let subscription = try #require(response.customer?.subscriptions.first)
            #expect(subscription.type == "non_renewing" && subscription.state == .active)

            // An auto-renewable the subscriptions service has not seen yet still counts by its store end.
            let ended = EntitlementsFixtures.transaction(
                product: "pro_monthly", expires: Date().addingTimeInterval(-60))
            let later = try await harness.applied([ended], user: "user-2")
            #expect(later.outcomes.map(\.outcome) == [.subscriptionRecorded])
            #expect(later.customer?.entitlements["pro"]?.active == false)
            #expect(later.customer?.subscriptions.first?.state == .expired)
        }
    }

    @Test("A store product the catalog does not know is recorded, and granted once the catalog knows it")
    func unknownProduct() async throws {
        try await EntitlementsHarness.run { harness in
            let purchase = EntitlementsFixtures.transaction(product: "greenhouse")
            let first = try await harness.applied([purchase])
            #expect(first.outcomes.map(\.outcome) == [.unknownProduct])
            #expect(first.customer?.entitlements.isEmpty == true)
            #expect(first.customer?.nonSubscriptionPurchases.first?.productID == nil)

            let products =
                EntitlementsFixtures.products + [
                    EntitlementsFixtures.product("greenhouse", type: .nonConsumable, entitlements: ["greenhouse"])
                ]
            #expect(try await harness.importCatalog(products).status == .ok)
            let again = try await harness.applied([purchase])
            #expect(again.outcomes.map(\.outcome) == [.granted])
            #expect(again.customer?.entitlements["greenhouse"]?.active == true)
        }
    }

    @Test("A consumable the catalog learns after its purchase is credited once when presented again, by its quantity")
    func unknownConsumableCreditedLater() async throws {
        try await EntitlementsHarness.run { harness in
            let purchase = EntitlementsFixtures.transaction(product: "fertilizer", quantity: 2)
            #expect(try await harness.applied([purchase]).outcomes.map(\.outcome) == [.unknownProduct])
            let products =
                EntitlementsFixtures.products + [
                    EntitlementsFixtures.product("fertilizer", type: .consumable, quantity: 4)
                ]
            #expect(try await harness.importCatalog(products).status == .ok)
            let again = try await harness.applied([purchase])
            #expect(again.outcomes.map(\.outcome) == [.credited])
            #expect(again.customer?.consumableBalances == ["fertilizer": 8])
            #expect(try await harness.applied([purchase]).outcomes.map(\.outcome) == [.alreadyApplied])
            #expect(try await harness.ledgerLines("user-1", product: "fertilizer", reason: "purchase") == [8])
            let credited = try harness.json(
                try await harness.send(.get, "/v1/admin/events?type=consumable_purchase"))
            let payloads = (credited["events"] as? [[String: Any]])?.compactMap { $0["data"] as? [String: Any] }
            #expect(payloads?.count == 1)
            #expect(payloads?.first?["quantity"] as? Int == 8)
            #expect(payloads?.first?["balance"] as? Int == 8)
            #expect(payloads?.first?["product_id"] as? String == "fertilizer")
            #expect(try await harness.ledgerMismatches() == [])
        }
    }

    @Test("A refund ends grants, claws back units, may leave the balance negative and counts a refund")
    func refundClawsBack() async throws {
        try await EntitlementsHarness.run { harness in
            let garden = EntitlementsFixtures.transaction(product: "garden")
            let seeds = EntitlementsFixtures.transaction(product: "seeds")
            _ = try await harness.applied([garden, seeds])
            let refundDate = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            var refunded = [garden, seeds]
            for index in refunded.indices {
                refunded[index].revocationDate = refundDate
                refunded[index].revocationReason = .appIssue
            }
            let response = try await harness.applied(refunded, user: nil, device: nil, source: .validation)
            #expect(response.outcomes.map(\.outcome) == [.revoked, .revoked])
            #expect(response.customer == nil)

            let customer = try await harness.info("user-1")
            #expect(customer.refundCount == 2)
            let grant = try #require(customer.entitlements["extra_garden"])
            #expect(!grant.active)
            #expect(grant.expiresAt == refundDate)
            #expect(customer.consumableBalances == ["seeds": 0])
            #expect(customer.nonSubscriptionPurchases.allSatisfy { $0.revokedAt == refundDate })

            // Seen again: nothing more happens.
            let again = try await harness.applied(refunded)
            #expect(again.outcomes.map(\.outcome) == [.alreadyApplied, .alreadyApplied])
            #expect(again.customer?.refundCount == 2)
        }
    }

    @Test("The store's reversal of a refund restores grants and units once; the reversed refund never returns")
    func refundReversal() async throws {
        try await EntitlementsHarness.run { harness in
            let garden = EntitlementsFixtures.transaction(product: "garden")
            let seeds = EntitlementsFixtures.transaction(product: "seeds")
            _ = try await harness.applied([garden, seeds])
            let refundDate = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            var refunded = [garden, seeds]
            var reversed = [garden, seeds]
            for index in refunded.indices {
                refunded[index].revocationDate = refundDate
                reversed[index].revocationReversedAt = refundDate.addingTimeInterval(5)
            }
            _ = try await harness.applied(refunded, user: nil, device: nil, source: .notification)
            #expect(try await harness.info("user-1").consumableBalances == ["seeds": 0])

            let response = try await harness.applied(reversed, user: nil, device: nil, source: .notification)
            #expect(response.outcomes.map(\.outcome) == [.reinstated, .reinstated])
            var customer = try await harness.info("user-1")
            #expect(customer.refundCount == 0)
            #expect(customer.entitlements["extra_garden"]?.active == true)
            #expect(customer.consumableBalances == ["seeds": 5])
            #expect(customer.nonSubscriptionPurchases.allSatisfy { $0.revokedAt == nil })

            // The reversal again, and the refund it reversed delivered late: nothing moves.
            let again = try await harness.applied(reversed + refunded, user: nil, device: nil, source: .notification)
            #expect(
                again.outcomes.map(\.outcome) == [.alreadyApplied, .alreadyApplied, .alreadyApplied, .alreadyApplied])
            customer = try await harness.info("user-1")
            #expect(customer.refundCount == 0)
            #expect(customer.consumableBalances == ["seeds": 5])

            // A refund dated after the reversal is a new one.
            var later = refunded
            for index in later.indices { later[index].revocationDate = refundDate.addingTimeInterval(60) }
            let refundedAgain = try await harness.applied(later, user: nil, device: nil, source: .notification)
            #expect(refundedAgain.outcomes.map(\.outcome) == [.revoked, .revoked])
            customer = try await harness.info("user-1")
            #expect(customer.refundCount == 2)
            #expect(customer.consumableBalances == ["seeds": 0])
        }
    }

    @Test("News about a purchase nobody owns changes nothing")
    func newsWithoutOwner() async throws {
        try await EntitlementsHarness.run { harness in
            let response = try await harness.applied(
                [EntitlementsFixtures.transaction(product: "garden", revoked: Date())], user: nil, device: nil,
                source: .validation)
            #expect(response.outcomes.map(\.outcome) == [.notOwned])
        }
    }

    @Test("The app account token binds a purchase to the customer it was made for")
    func appAccountToken() async throws {
        try await EntitlementsHarness.run { harness in
            let token = AppAccountToken.uuid(forAppUserID: "alice").uuidString.lowercased()
            let purchase = EntitlementsFixtures.transaction(product: "garden", appAccountToken: token)
            let refused = try await harness.apply([purchase], user: "mallory")
            #expect(refused.status == .forbidden)
            #expect(
                try TestJSON.object(refused.body.readableBytesView)["code"] as? String == "app_account_token_mismatch")
            #expect(try await harness.info("mallory").nonSubscriptionPurchases.isEmpty)
            #expect(try await harness.applied([purchase], user: "alice").outcomes.map(\.outcome) == [.granted])

            let play = EntitlementsFixtures.transaction(
                product: "garden", store: .playStore, obfuscatedAccountID: "alice")
            let wrong = try await harness.apply([play], user: "mallory")
            #expect(wrong.status == .forbidden)
            #expect(
                try TestJSON.object(wrong.body.readableBytesView)["code"] as? String == "obfuscated_account_id_mismatch"
            )
            #expect(try await harness.apply([play], user: "alice").status == .ok)
        }
    }

    @Test("Bad input is a 4xx problem, never a partial write")
    func badInput() async throws {
        try await EntitlementsHarness.run { harness in
            // No transactions: fine for a presenter (a restore that found nothing answers the customer), not without.
            let empty = try await harness.apply([], user: nil)
            #expect(empty.status == .unprocessableContent)
            #expect(try await harness.apply([]).status == .ok)
            let unsigned = try await harness.client.execute(
                uri: "/internal/v1/apply", method: .post, headers: [.contentType: "application/json"],
                body: .init(string: "{}"))
            #expect(unsigned.status == .unauthorized)
            let malformed = try await harness.send(.post, "/internal/v1/apply", json: Data("{\"source\":".utf8))
            #expect(malformed.status == .badRequest)
        }
    }
}

extension CustomerInfo {
    /// This info with another `last_seen` (which every write refreshes).
    func with(lastSeen: Date?) -> CustomerInfo {
        var copy = self
        if let lastSeen { copy.lastSeen = lastSeen }
        return copy
    }
}
