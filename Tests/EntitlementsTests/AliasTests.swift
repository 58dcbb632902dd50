import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite("Linking ids to one customer")
struct AliasTests {
    static let template = "/v1/customers/{app_user_id}/aliases"

    /// The customer info of a link's answer, requiring 200 and a documented body.
    static func linked(_ response: any HTTPAnswer) throws -> CustomerInfo {
        guard response.status == .ok else { throw HarnessError("link answered \(response.status): \(response.text)") }
        #expect(try response.violations(.post, template) == [])
        return try TestJSON.decode(CustomerInfo.self, response.body.readableBytesView)
    }

    @Test("An anonymous buyer who logs in keeps the purchase under both ids")
    func anonymousThenLoggedIn() async throws {
        try await EntitlementsHarness.run { harness in
            let garden = EntitlementsFixtures.transaction(product: "garden")
            _ = try await harness.applied([garden], user: "anon-7f3a", device: "phone")
            #expect(try await harness.info("user-42").entitlements.isEmpty)

            let customer = try Self.linked(try await harness.link("anon-7f3a", to: "user-42"))
            #expect(customer.appUserID == "user-42")
            #expect(Set(customer.aliases) == ["anon-7f3a", "user-42"])
            #expect(customer.entitlements["extra_garden"]?.active == true)
            #expect(customer.nonSubscriptionPurchases.map(\.transactionID) == [garden.transactionID])

            let anonymous = try await harness.info("anon-7f3a")
            #expect(anonymous.entitlements["extra_garden"]?.active == true)
            #expect(Set(anonymous.aliases) == Set(customer.aliases))
            // The purchase's device binding followed, so the same device presenting it again is no new device.
            #expect(
                try await harness.count(
                    """
                    SELECT count(*) FROM entitlements.purchase_devices d
                    JOIN entitlements.aliases a ON a.customer_id = d.customer_id
                    WHERE a.app_id = \(harness.appID) AND a.app_user_id = 'user-42'
                    """) == 1)
            #expect(
                try await harness.count(
                    """
                    SELECT count(*) FROM entitlements.customers
                    WHERE app_id = \(harness.appID) AND merged_into IS NOT NULL
                    """) == 1)
            // Purchases presented later under either id land on the one customer.
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")], user: "anon-7f3a")
            #expect(try await harness.info("user-42").consumableBalances == ["seeds": 5])
        }
    }

    @Test("An unknown id is added once; linking it again, or an id to itself, changes nothing")
    func addAndRepeat() async throws {
        try await EntitlementsHarness.run { harness in
            let first = try Self.linked(try await harness.link("install-1", to: "member"))
            // Oldest first; both ids were made in one transaction, so they tie and come in id order.
            #expect(first.aliases == ["install-1", "member"])
            let again = try Self.linked(try await harness.link("install-1", to: "member"))
            #expect(again.aliases == first.aliases)
            let reverse = try Self.linked(try await harness.link("member", to: "install-1"))
            #expect(reverse.appUserID == "install-1")
            #expect(reverse.aliases == first.aliases)
            let itself = try Self.linked(try await harness.link("member", to: "member"))
            #expect(itself.aliases == first.aliases)
            #expect(
                try await harness.count(
                    "SELECT count(*) FROM entitlements.events WHERE app_id = \(harness.appID) AND type = 'alias'") == 1)
            let invalid = try await harness.link("", to: "member")
            #expect(invalid.status == .unprocessableContent)
            #expect(try invalid.violations(.post, Self.template) == [])
        }
    }

    @Test(
        "Two customers who both own something: merged under transfer, 409 and nothing changed otherwise",
        arguments: ["transfer", "keep_with_original", "transfer_if_no_active"])
    func bothOwn(policy: String) async throws {
        try await EntitlementsHarness.run { harness in
            try await setPolicy(policy, appID: harness.appID)
            _ = try await harness.applied(
                [
                    EntitlementsFixtures.transaction(product: "garden"),
                    EntitlementsFixtures.transaction(product: "seeds"),
                ],
                user: "anon", device: "old-phone")
            _ = try await harness.applied(
                [EntitlementsFixtures.transaction(product: "seeds")], user: "member", device: "new-phone")
            #expect(try await harness.consume("member", quantity: 2).status == .ok)

            let response = try await harness.link("anon", to: "member")
            if policy == "transfer" {
                let member = try Self.linked(response)
                #expect(member.entitlements["extra_garden"]?.active == true)
                #expect(member.consumableBalances == ["seeds": 8])
                #expect(member.nonSubscriptionPurchases.count == 3)
                #expect(try await harness.info("anon") == member.with(appUserID: "anon"))
                let moves = try await harness.count(
                    """
                    SELECT coalesce(sum(CASE WHEN reason = 'merge_in' THEN delta ELSE -delta END), 0)::bigint
                    FROM entitlements.ledger WHERE app_id = \(harness.appID) AND reason IN ('merge_in', 'merge_out')
                    """)
                #expect(moves == 10)  // +5 in on the member, -5 out of the anonymous customer
            } else {
                #expect(response.status == .conflict)
                #expect(response.problemCode == "already_owned_by_other_customer")
                #expect(try response.violations(.post, Self.template) == [])
                let anon = try await harness.info("anon")
                let member = try await harness.info("member")
                #expect(anon.aliases == ["anon"])
                #expect(anon.entitlements["extra_garden"]?.active == true)
                #expect(anon.consumableBalances == ["seeds": 5])
                #expect(member.aliases == ["member"])
                #expect(member.consumableBalances == ["seeds": 3])
            }
            #expect(try await harness.ledgerMismatches() == [])
        }
    }

    @Test("Under a strict policy, a customer who owns nothing is merged all the same")
    func oneSideOwns() async throws {
        try await EntitlementsHarness.run { harness in
            try await setPolicy("keep_with_original", appID: harness.appID)
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")], user: "anon")
            #expect(try await harness.info("member").consumableBalances.isEmpty)
            let member = try Self.linked(try await harness.link("anon", to: "member"))
            #expect(member.consumableBalances == ["seeds": 5])
            #expect(try await harness.ledgerMismatches() == [])
        }
    }

    @Test("Opposite links at once, on two replicas, end in one customer that owns everything")
    func oppositeLinks() async throws {
        try await EntitlementsHarness.run(replicas: 2) { harness in
            let pairs = 6
            for pair in 0..<pairs {
                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "a-\(pair)")
                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")], user: "b-\(pair)")
            }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for pair in 0..<pairs {
                    group.addTask {
                        Int(try await harness.link("b-\(pair)", to: "a-\(pair)", replica: 0, atOnce: true).status.code)
                    }
                    group.addTask {
                        Int(try await harness.link("a-\(pair)", to: "b-\(pair)", replica: 1, atOnce: true).status.code)
                    }
                }
                var all: [Int] = []
                for try await status in group { all.append(status) }
                return all
            }
            #expect(statuses == Array(repeating: 200, count: 2 * pairs))
            for pair in 0..<pairs {
                let a = try await harness.info("a-\(pair)")
                let b = try await harness.info("b-\(pair)")
                #expect(Set(a.aliases) == ["a-\(pair)", "b-\(pair)"])
                #expect(a == b.with(appUserID: "a-\(pair)"))
                #expect(a.entitlements["extra_garden"]?.active == true)
                #expect(a.consumableBalances == ["seeds": 5])
            }
            #expect(try await harness.ledgerMismatches() == [])
        }
    }

    @Test("A merge during spends and a refund under the merged id loses nothing and never overdraws")
    func mergeDuringSpendsAndRefund() async throws {
        try await EntitlementsHarness.run(replicas: 2) { harness in
            let anonSeeds = try await ConsumeTests.buySeeds(harness, user: "anon", count: 3)
            _ = try await ConsumeTests.buySeeds(harness, user: "member", count: 1)
            struct Answer: Sendable {
                var kind: String
                var status: Int
                var balance: Int64?
            }
            let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let response = try await harness.consume("anon", replica: index % 2, atOnce: true)
                        let balance = (try response.json["balance"] as? NSNumber)?.int64Value
                        return Answer(kind: "consume", status: Int(response.status.code), balance: balance)
                    }
                }
                group.addTask {
                    let link = try await harness.link("anon", to: "member", replica: 1, atOnce: true)
                    return Answer(kind: "link", status: Int(link.status.code))
                }
                group.addTask {
                    let refund = try await harness.apply(
                        [ConsumeTests.refunded(anonSeeds[0])], user: nil, device: nil, source: .notification,
                        atOnce: true)
                    return Answer(kind: "refund", status: Int(refund.status.code))
                }
                var all: [Answer] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            var spends: [Answer] = []
            var others: [Int] = []
            for answer in answers {
                if answer.kind == "consume" { spends.append(answer) } else { others.append(answer.status) }
            }
            #expect(others == [200, 200])
            #expect(spends.count == 20)
            #expect(spends.allSatisfy { $0.status == 200 || $0.status == 409 })
            let spent = spends.filter { $0.status == 200 }
            #expect(spent.allSatisfy { ($0.balance ?? -1) >= 0 })
            // 20 units in all; the refund took back what was left of its 5 when it came (never more: no balance
            // goes below zero); every spend came out of one of the two balances, then the merged one.
            let clawedBack = try await harness.count(
                """
                SELECT coalesce(-sum(delta), 0)::bigint FROM entitlements.ledger
                WHERE app_id = \(harness.appID) AND reason = 'refund'
                """)
            #expect((0...5).contains(clawedBack))
            let member = try await harness.info("member")
            #expect(Set(member.aliases) == ["anon", "member"])
            #expect(member.consumableBalances["seeds"] == 20 - Int64(spent.count) - clawedBack)
            #expect(member.refundCount == 1)
            #expect(try await harness.ledgerMismatches() == [])
            #expect(
                try await harness.count(
                    """
                    SELECT count(*) FROM entitlements.ledger
                    WHERE app_id = \(harness.appID) AND reason = 'consume'
                    """) == Int64(spent.count))
        }
    }
}

extension CustomerInfo {
    /// This info as addressed by another of its ids.
    func with(appUserID: String) -> CustomerInfo {
        var copy = self
        copy.appUserID = appUserID
        return copy
    }
}
