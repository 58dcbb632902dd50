import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite("Consuming units of a consumable")
struct ConsumeTests {
    static let template = "/v1/customers/{app_user_id}/consumables/{product_id}/consume"

    /// Credits `count` purchases of 5 seeds to `user`; their transactions.
    static func buySeeds(_ harness: EntitlementsHarness, user: String, count: Int) async throws -> [StoreTransaction] {
        let purchases = (0..<count).map { _ in EntitlementsFixtures.transaction(product: "seeds") }
        _ = try await harness.applied(purchases, user: user)
        return purchases
    }

    /// `transaction`, refunded now.
    static func refunded(_ transaction: StoreTransaction) -> StoreTransaction {
        var copy = transaction
        copy.revocationDate = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        copy.revocationReason = .other
        return copy
    }

    @Test("40 concurrent consumes on two replicas during a refund never overdraw, and the ledger adds up")
    func concurrentConsumesAndRefund() async throws {
        try await EntitlementsHarness.run(replicas: 2) { harness in
            let purchases = try await Self.buySeeds(harness, user: "spender", count: 3)
            #expect(try await harness.info("spender").consumableBalances == ["seeds": 15])

            let (answers, refund) = try await withThrowingTaskGroup(of: (Int, Int64?, [String]).self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let response = try await harness.consume("spender", replica: index % 2, atOnce: true)
                        let balance = (try response.json["balance"] as? NSNumber)?.int64Value
                        // A consume that could not take the customer's lock in time (`lock_timeout`, a loaded
                        // machine) is told to retry, and spent nothing: the ledger below counts only the 200s.
                        let retry =
                            response.status == .serviceUnavailable && response.problemCode == "database_unavailable"
                        return (
                            retry ? 0 : Int(response.status.code), balance,
                            try response.violations(.post, Self.template)
                        )
                    }
                }
                group.addTask {
                    let response = try await harness.apply(
                        [Self.refunded(purchases[1])], user: nil, device: nil, source: .notification, replica: 1,
                        atOnce: true)
                    return (-Int(response.status.code), nil, [])
                }
                var answers: [(status: Int, balance: Int64?, violations: [String])] = []
                var refund = 0
                for try await (status, balance, violations) in group {
                    if status < 0 { refund = -status } else { answers.append((status, balance, violations)) }
                }
                return (answers, refund)
            }
            #expect(refund == 200)
            #expect(answers.allSatisfy { [200, 409, 0].contains($0.status) }, "\(answers.map(\.status))")
            #expect(answers.flatMap(\.violations) == [])
            let successes = answers.filter { $0.status == 200 }
            // 15 units, 5 of them refunded: at least 10 and at most 15 spent (fewer only when consumes were told to
            // retry), each leaving a balance of zero or more;
            // the refund took back what was left of its 5 units when it came, never more.
            let retried = answers.filter { $0.status == 0 }.count
            #expect((max(0, 10 - retried)...15).contains(successes.count))
            #expect(successes.allSatisfy { ($0.balance ?? -1) >= 0 })
            let clawedBack = -(try await harness.ledgerLines("spender", reason: "refund").reduce(0, +))
            #expect((0...5).contains(clawedBack))
            #expect(
                try await harness.info("spender").consumableBalances == [
                    "seeds": 15 - Int64(successes.count) - clawedBack
                ])
            #expect(try await harness.ledgerLines("spender", reason: "consume").count == successes.count)
            #expect(try await harness.ledgerMismatches() == [])
        }
    }

    @Test("A key answers once: a retry replays the first answer, another request with it is refused")
    func idempotencyKey() async throws {
        try await EntitlementsHarness.run { harness in
            _ = try await Self.buySeeds(harness, user: "gardener", count: 1)
            let first = try await harness.consume("gardener", quantity: 2, key: "key-1")
            #expect(first.status == .ok)
            #expect(try first.violations(.post, Self.template) == [])
            #expect(first.headers[HTTPField.Name("Idempotent-Replayed")!] == nil)
            #expect(try first.json["balance"] as? Int == 3)
            #expect(try first.json["consumed"] as? Int == 2)
            #expect(try first.json["product_id"] as? String == "seeds")
            let customer = try TestJSON.decode(
                CustomerInfo.self, try JSONSerialization.data(withJSONObject: try #require(first.json["customer"])))
            #expect(customer.consumableBalances == ["seeds": 3])

            let again = try await harness.consume("gardener", quantity: 2, key: "key-1")
            #expect(again.status == .ok)
            #expect(again.text == first.text)
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(try again.violations(.post, Self.template) == [])

            let reused = try await harness.consume("gardener", quantity: 1, key: "key-1")
            #expect(reused.status == .unprocessableContent)
            #expect(reused.problemCode == "idempotency_key_reused")
            #expect(try reused.violations(.post, Self.template) == [])
            let otherUser = try await harness.consume("someone-else", quantity: 2, key: "key-1")
            #expect(otherUser.problemCode == "idempotency_key_reused")

            let missing = try await harness.consume("gardener", key: nil)
            #expect(missing.status == .badRequest)
            #expect(missing.problemCode == "idempotency_key_required")
            #expect(try missing.violations(.post, Self.template) == [])
            let unusable = try await harness.consume("gardener", key: String(repeating: "k", count: 256))
            #expect(unusable.status == .badRequest)
            #expect(unusable.problemCode == "bad_header")

            #expect(try await harness.ledgerLines("gardener", reason: "consume") == [-2])
            #expect(try await harness.info("gardener").consumableBalances == ["seeds": 3])
        }
    }

    @Test("10 requests with one key at once spend once; the others replay the answer")
    func concurrentSameKey() async throws {
        try await EntitlementsHarness.run(replicas: 2) { harness in
            _ = try await Self.buySeeds(harness, user: "twin", count: 1)
            let responses = try await withThrowingTaskGroup(of: (Int, String, Bool).self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let response = try await harness.consume(
                            "twin", quantity: 3, key: "same-key", replica: index % 2, atOnce: true)
                        let replayed = response.headers[HTTPField.Name("Idempotent-Replayed")!] == "true"
                        return (Int(response.status.code), response.text, replayed)
                    }
                }
                var all: [(status: Int, body: String, replayed: Bool)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(responses.allSatisfy { $0.status == 200 })
            #expect(Set(responses.map(\.body)).count == 1)
            #expect(responses.filter { !$0.replayed }.count == 1)
            #expect(try await harness.ledgerLines("twin", reason: "consume") == [-3])
            #expect(try await harness.info("twin").consumableBalances == ["seeds": 2])
        }
    }

    @Test("A refund of spent units takes back only what is left: the balance stays at zero, never below")
    func refundAfterSpending() async throws {
        try await EntitlementsHarness.run { harness in
            let purchases = try await Self.buySeeds(harness, user: "refunder", count: 2)
            #expect(try await harness.consume("refunder", quantity: 8).status == .ok)
            _ = try await harness.applied([Self.refunded(purchases[0])], user: nil, device: nil, source: .validation)
            #expect(try await harness.info("refunder").consumableBalances == ["seeds": 0])
            #expect(try await harness.ledgerLines("refunder", reason: "refund") == [-2])

            let refused = try await harness.consume("refunder", quantity: 1, key: "while-empty")
            #expect(refused.status == .conflict)
            #expect(refused.problemCode == "insufficient_balance")
            #expect(try refused.violations(.post, Self.template) == [])

            _ = try await Self.buySeeds(harness, user: "refunder", count: 1)
            #expect(try await harness.info("refunder").consumableBalances == ["seeds": 5])
            // A key's first answer is final, even once the balance would allow it.
            let replayed = try await harness.consume("refunder", quantity: 1, key: "while-empty")
            #expect(replayed.status == .conflict)
            #expect(replayed.text == refused.text)
            #expect(replayed.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            let allowed = try await harness.consume("refunder", quantity: 1)
            #expect(allowed.status == .ok)
            #expect(try allowed.json["balance"] as? Int == 4)
            #expect(try await harness.consume("refunder", quantity: 5).problemCode == "insufficient_balance")
            #expect(try await harness.ledgerMismatches() == [])
        }
    }

    @Test("Products that are not consumables, bad quantities and unknown customers")
    func refusals() async throws {
        try await EntitlementsHarness.run { harness in
            let garden = try await harness.consume("nobody", "garden")
            #expect(garden.status == .unprocessableContent)
            #expect(garden.problemCode == "not_a_consumable")
            #expect(try garden.violations(.post, Self.template) == [])
            let unknown = try await harness.consume("nobody", "no-such-product")
            #expect(unknown.status == .notFound)
            #expect(unknown.problemCode == "product_not_found")
            #expect(try unknown.violations(.post, Self.template) == [])
            for quantity in [0, -1, 1_000_001] {
                let bad = try await harness.consume("nobody", quantity: quantity)
                #expect(bad.status == .unprocessableContent)
                #expect(bad.problemCode == "validation_failed")
                #expect(try bad.violations(.post, Self.template) == [])
            }
            let stranger = try await harness.consume("nobody")
            #expect(stranger.status == .conflict)
            #expect(stranger.problemCode == "insufficient_balance")
            // Consuming creates no customer.
            #expect(
                try await harness.count(
                    "SELECT count(*) FROM entitlements.aliases WHERE app_id = \(harness.appID)") == 0)
        }
    }
}
