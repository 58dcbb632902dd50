import Foundation
import HummingbirdTesting
import PostgresNIO
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// The rules that keep consumable units and ownership money-grade: units are credited once, to their first
/// presenter, and never leave; a balance never goes below zero; a purchase changes owner once per real transfer.
@Suite("Money rules for purchases and consumables")
struct MoneyRuleTests {
    @Test(
        "A consumable stays with its first presenter: another customer presenting it gets 409, units are not doubled",
        arguments: ["transfer", "transfer_if_no_active", "keep_with_original"])
    func consumableStaysWithFirstPresenter(policy: String) async throws {
        try await EntitlementsHarness.run { harness in
            try await setPolicy(policy, appID: harness.appID)
            let seeds = EntitlementsFixtures.transaction(product: "seeds")
            _ = try await harness.applied([seeds], user: "x")
            #expect(try await harness.consume("x", quantity: 5).status == .ok)

            let other = try await harness.apply([seeds], user: "y", device: "device-2")
            #expect(other.status == .conflict)
            #expect(other.problemCode == "already_owned_by_other_customer")
            // y cannot spend what x already spent; x did not go negative.
            #expect(try await harness.consume("y", quantity: 5).status == .conflict)
            #expect(try await harness.info("x").consumableBalances == ["seeds": 0])
            #expect(try await harness.info("y").consumableBalances.isEmpty)
            let credits = try await harness.count(
                "SELECT coalesce(sum(delta), 0)::bigint FROM entitlements.ledger WHERE app_id = \(harness.appID) AND delta > 0"
            )
            #expect(credits == 5)
            #expect(try await harness.ledgerMismatches().isEmpty)
        }
    }

    @Test("A refund after units were spent takes back only what is left, and its reversal gives exactly that back")
    func refundNeverOverdraws() async throws {
        try await EntitlementsHarness.run { harness in
            let seeds = EntitlementsFixtures.transaction(product: "seeds")
            _ = try await harness.applied([seeds], user: "spender")
            #expect(try await harness.consume("spender", quantity: 3).status == .ok)

            var refunded = seeds
            refunded.revocationDate = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            refunded.revocationReason = .other
            let revoked = try await harness.applied([refunded], user: nil, device: nil, source: .notification)
            #expect(revoked.outcomes.map(\.outcome) == [.revoked])
            #expect(try await harness.info("spender").consumableBalances == ["seeds": 0])
            #expect(try await harness.ledgerLines("spender", reason: "refund") == [-2])

            var reversed = refunded
            reversed.revocationReversedAt = refunded.revocationDate?.addingTimeInterval(60)
            let back = try await harness.applied([reversed], user: nil, device: nil, source: .notification)
            #expect(back.outcomes.map(\.outcome) == [.reinstated])
            #expect(try await harness.info("spender").consumableBalances == ["seeds": 2])
            #expect(try await harness.ledgerMismatches().isEmpty)
        }
    }

    @Test("A request that names one purchase twice (two notifications about one refund) applies it once")
    func samePurchaseTwiceInOneRequest() async throws {
        try await EntitlementsHarness.run { harness in
            let seeds = EntitlementsFixtures.transaction(product: "seeds")
            let bought = try await harness.applied([seeds, seeds], user: "twice")
            #expect(bought.customer?.consumableBalances == ["seeds": 5])

            var refunded = seeds
            refunded.revocationDate = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            refunded.revocationReason = .other
            let revoked = try await harness.applied(
                [refunded, refunded], user: nil, device: nil, source: .notification)
            #expect(revoked.outcomes.map(\.outcome) == [.revoked, .alreadyApplied])
            let info = try await harness.info("twice")
            #expect(info.refundCount == 1)
            #expect(info.consumableBalances == ["seeds": 0])
            #expect(try await harness.ledgerLines("twice", reason: "refund") == [-5])
            #expect(try await harness.ledgerMismatches().isEmpty)
        }
    }

    @Test("One refund arriving by every path at once (notifications, the app, a restore) is counted once")
    func oneRefundRacedByEveryPathCountsOnce() async throws {
        try await EntitlementsHarness.run(replicas: 2) { harness in
            let seeds = EntitlementsFixtures.transaction(product: "seeds")
            _ = try await harness.applied([seeds], user: "raced")
            var refunded = seeds
            refunded.revocationDate = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            refunded.revocationReason = .other
            let refund = refunded
            let sources: [ApplySource?] = Array(repeating: .notification, count: 6) + [nil, nil, .restore, .restore]
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, source) in sources.enumerated() {
                    group.addTask {
                        let answer = try await harness.apply(
                            [refund], user: source == .notification ? nil : "raced", device: nil,
                            source: source ?? .purchase, replica: index % 2, atOnce: true)
                        return Int(answer.status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
            let info = try await harness.info("raced")
            #expect(info.refundCount == 1)
            #expect(info.consumableBalances == ["seeds": 0])
            #expect(try await harness.ledgerLines("raced", reason: "refund") == [-5])
            #expect(try await harness.ledgerMismatches().isEmpty)
        }
    }

    @Test("A purchase moves to a second presenter once; a purchase request never moves it back, a restore does")
    func noBounce() async throws {
        try await EntitlementsHarness.run { harness in
            let garden = EntitlementsFixtures.transaction(product: "garden")
            _ = try await harness.applied([garden], user: "x")
            let moved = try await harness.applied([garden], user: "y", device: "device-2")
            #expect(moved.outcomes.map(\.outcome) == [.transferred])

            let back = try await harness.apply([garden], user: "x")
            #expect(back.status == .conflict)
            #expect(back.problemCode == "already_owned_by_other_customer")
            #expect(try await harness.info("y").entitlements["extra_garden"]?.active == true)

            let restored = try await harness.applied([garden], user: "x", source: .restore)
            #expect(restored.outcomes.map(\.outcome) == [.transferred])
            #expect(try await harness.info("x").entitlements["extra_garden"]?.active == true)
            #expect(try await harness.info("y").entitlements.isEmpty)
        }
    }

    @Test("50 presentations of one purchase by two customers at once, two replicas: it changes owner at most once")
    func concurrentPresentersDoNotBounce() async throws {
        try await EntitlementsHarness.run(replicas: 2) { harness in
            let garden = EntitlementsFixtures.transaction(product: "garden")
            _ = try await harness.applied([garden], user: "alice")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        try await harness.apply(
                            [garden], user: index % 2 == 0 ? "alice" : "bob", device: "device-\(index % 2)",
                            replica: index % 2, atOnce: true
                        ).status.code
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(Set(statuses).isSubset(of: [200, 409]))
            let transfers = try await harness.count(
                "SELECT count(*) FROM entitlements.events WHERE app_id = \(harness.appID) AND type = 'transfer'")
            // One move is two events (one for each side); no move at all is fine too.
            #expect(transfers <= 2)
        }
    }

    @Test("The public key cannot fold a customer who owns something into another id; the secret key can")
    func publicKeyCannotTakeOver() async throws {
        try await EntitlementsHarness.run { harness in
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "alice")
            // Even from an anonymous id, as a log-in links: alice owns something.
            let anonymousMallory = "anon_" + UUID().uuidString.lowercased()
            let takeover = try await harness.link("alice", to: anonymousMallory, kind: .public)
            #expect(takeover.status == .forbidden)
            #expect(takeover.problemCode == "merge_needs_secret_key")
            #expect(try takeover.violations(.post, "/v1/customers/{app_user_id}/aliases") == [])
            #expect(try await harness.info("alice").entitlements["extra_garden"]?.active == true)
            #expect(try await harness.info(anonymousMallory).entitlements.isEmpty)
            // From an identified id the public key links nothing at all.
            let named = try await harness.link("alice", to: "mallory", kind: .public)
            #expect(named.problemCode == "secret_key_required")
            #expect(try await harness.info("mallory").entitlements.isEmpty)

            // The login flow the public key may do, from an install's anonymous id: the new id becomes an alias of
            // the anonymous customer who owns things. From an identified id, only the secret key links.
            let install = "anon_" + UUID().uuidString.lowercased()
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: install)
            let login = try await harness.link("alice-account", to: install, kind: .public)
            #expect(login.status == .ok)
            #expect(try await harness.info("alice-account").entitlements["extra_garden"]?.active == true)
            let claim = try await harness.link("alice-login", to: "alice", kind: .public)
            #expect(claim.status == .forbidden)
            #expect(claim.problemCode == "secret_key_required")

            // From the developer's server, with the secret key, owners can be merged.
            let merged = try await harness.link("alice", to: "mallory", kind: .secret)
            #expect(merged.status == .ok)
            #expect(try await harness.info("mallory").entitlements["extra_garden"]?.active == true)
        }
    }

    @Test("Reading an unknown customer answers an empty document and creates nothing")
    func readingCreatesNothing() async throws {
        try await EntitlementsHarness.run { harness in
            let response = try await harness.send(.get, "/v1/customers/nobody-yet", kind: .public)
            #expect(response.status == .ok)
            #expect(try response.violations(.get, "/v1/customers/{app_user_id}") == [])
            let info = try TestJSON.decode(CustomerInfo.self, response.body.readableBytesView)
            #expect(info.appUserID == "nobody-yet")
            #expect(info.entitlements.isEmpty && info.nonSubscriptionPurchases.isEmpty)
            #expect(info.consumableBalances.isEmpty && info.trial.state == .none)
            #expect(info.firstSeen == CustomerInfo.neverSeen && info.lastSeen == CustomerInfo.neverSeen)
            // The same document on every read: its ETag keeps matching, whenever the reads happen.
            let again = try await harness.send(.get, "/v1/customers/nobody-yet", kind: .public)
            #expect(again.headers[.eTag] == response.headers[.eTag])
            #expect(String(buffer: again.body) == String(buffer: response.body))
            let customers = try await harness.count(
                "SELECT count(*) FROM entitlements.aliases WHERE app_id = \(harness.appID)")
            #expect(customers == 0)
        }
    }
}
