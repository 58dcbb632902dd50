import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Google Play's quantity-based partial refunds as entitlements applies them: the store's running total of units
/// refunded (`refunded_quantity`) claws back only what it adds, once however often and however concurrently it is
/// delivered, never below zero; the purchase stays until all its units are refunded; the sales report counts each
/// refund's share of the price.
@Suite("Partial refunds")
struct PartialRefundTests {
    typealias F = ReportFixtures

    /// Five packs of seeds (5 units each) bought on Play by `user`.
    static func packs(_ id: String = UUID().uuidString, price: Int64? = 5000, at date: Date = F.day(2))
        -> StoreTransaction
    {
        F.sale(id, product: "seeds", at: date, price: price, quantity: 5, store: .playStore)
    }

    /// `transaction` with `units` of it refunded so far.
    static func refunded(_ transaction: StoreTransaction, _ units: Int) -> StoreTransaction {
        var partly = transaction
        partly.refundedQuantity = units
        return partly
    }

    /// The payloads of the app's `refund` events, oldest first, once there are `count` (events are listed once the
    /// outbox has published them).
    func refundEvents(_ harness: EntitlementsHarness, count: Int) async throws -> [[String: Any]] {
        try await ShopkeeperTestSupport.eventually(
            {
                let response = try await harness.send(.get, "/v1/admin/events?limit=200")
                try harness.require(response, .ok)
                let events = (try response.json["events"] as? [[String: Any]] ?? []).reversed()
                return events.filter { $0["type"] as? String == "refund" }.compactMap {
                    $0["data"] as? [String: Any]
                }
            }, until: { $0.count >= count })
    }

    @Test("Two deliveries of one partial refund at once, on two replicas, claw its units back once")
    func concurrentDeliveriesClawBackOnce() async throws {
        try await EntitlementsHarness.run(replicas: 2) { harness in
            let packs = Self.packs()
            let bought = try await harness.applied([packs], user: "ana")
            #expect(bought.customer?.consumableBalances == ["seeds": 25])

            let partly = Self.refunded(packs, 2)
            let answers = try await withThrowingTaskGroup(of: ApplyResponse.self) { group in
                for replica in 0..<2 {
                    group.addTask {
                        let answer = try await harness.apply(
                            [partly], user: nil, device: nil, source: .notification, replica: replica, atOnce: true)
                        try harness.require(answer, .ok)
                        return try TestJSON.decode(ApplyResponse.self, answer.body.readableBytesView)
                    }
                }
                var all: [ApplyResponse] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            let outcomes = answers.flatMap { $0.outcomes.map(\.outcome) }
            #expect(outcomes.sorted { $0.rawValue < $1.rawValue } == [.alreadyApplied, .partiallyRefunded])
            let info = try await harness.info("ana")
            #expect(info.consumableBalances == ["seeds": 15] && info.refundCount == 1)
            #expect(try await harness.ledgerLines("ana", reason: "refund") == [-10])
            #expect(try await harness.ledgerMismatches().isEmpty)
            let events = try await refundEvents(harness, count: 1)
            #expect(events.count == 1)
            #expect(events.first?["refunded_quantity"] as? Int == 2 && events.first?["quantity"] as? Int == 10)
            #expect(events.first?["balance"] as? Int == 15 && events.first?["unrecovered_quantity"] as? Int == 0)
            // The purchase is still in force: the same total again is nothing new.
            let again = try await harness.applied([partly], user: nil, device: nil, source: .notification)
            #expect(again.outcomes.map(\.outcome) == [.alreadyApplied])
        }
    }

    @Test("Units already spent stay spent; the last units refunded revoke the purchase and take back what is left")
    func spentUnitsAndTheLastRefund() async throws {
        try await EntitlementsHarness.run { harness in
            let packs = Self.packs()
            _ = try await harness.applied([packs], user: "bo")
            #expect(try await harness.consume("bo", quantity: 20).status == .ok)

            // 2 of 5 packs refunded: 10 units owed, 5 left to take back.
            let partly = try await harness.applied(
                [Self.refunded(packs, 2)], user: nil, device: nil, source: .notification)
            #expect(partly.outcomes.map(\.outcome) == [.partiallyRefunded])
            #expect(try await harness.info("bo").consumableBalances == ["seeds": 0])
            // A later refund of 1 more pack: nothing left to take back, all 5 units unrecovered.
            _ = try await harness.applied([Self.refunded(packs, 3)], user: nil, device: nil, source: .notification)
            // The rest (2 packs) with the purchase revoked.
            var rest = Self.refunded(packs, 5)
            rest.revocationDate = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 5).rounded(.down))
            rest.revocationReason = .other
            let revoked = try await harness.applied([rest], user: nil, device: nil, source: .notification)
            #expect(revoked.outcomes.map(\.outcome) == [.revoked])
            let info = try await harness.info("bo")
            #expect(info.consumableBalances == ["seeds": 0] && info.refundCount == 3)
            #expect(try await harness.ledgerLines("bo", reason: "refund") == [-5])
            #expect(try await harness.ledgerMismatches().isEmpty)
            let events = try await refundEvents(harness, count: 3)
            #expect(events.map { $0["refunded_quantity"] as? Int } == [2, 1, 2], "\(events)")
            #expect(events.map { $0["quantity"] as? Int } == [5, 0, 0], "\(events)")
            #expect(events.map { $0["unrecovered_quantity"] as? Int } == [5, 5, 10], "\(events)")
        }
    }

    @Test("A purchase first presented after a partial refund is credited, then its refunded units taken back")
    func presentedAfterAPartialRefund() async throws {
        try await EntitlementsHarness.run { harness in
            let partly = Self.refunded(Self.packs(), 1)
            let applied = try await harness.applied([partly], user: "cy")
            #expect(applied.outcomes.map(\.outcome) == [.partiallyRefunded])
            #expect(applied.customer?.consumableBalances == ["seeds": 20])
            #expect(try await harness.ledgerMismatches().isEmpty)
        }
    }

    @Test("The sales report counts each partial refund's share of the price, and the last refund only what was left")
    func salesReportProratesPartialRefunds() async throws {
        try await EntitlementsHarness.run { harness in
            let packs = Self.packs(price: 5000, at: F.day(2))
            _ = try await harness.applied([packs], user: "di")
            _ = try await harness.applied([Self.refunded(packs, 2)], user: nil, device: nil, source: .notification)
            var rest = Self.refunded(packs, 5)
            rest.revocationDate = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 5).rounded(.down))
            rest.revocationReason = .other
            _ = try await harness.applied([rest], user: nil, device: nil, source: .notification)

            let report = try await harness.reportDocument("sales", "from=\(F.name(2))&to=\(F.name(0))")
            let sold = report.rows.first { $0["day"] == .text(F.name(2)) }
            #expect(sold?["revenue_milliunits"] == 5000 && sold?["units"] == 5, "\(report.rows)")
            let refunds = report.rows.first { $0["day"] == .text(F.name(0)) }
            #expect(refunds?["refunds"] == 2 && refunds?["refunded_milliunits"] == 5000, "\(report.rows)")
            // The partial refund alone: 2 of 5 packs.
            let partial = try await harness.count(
                """
                SELECT sum(units)::bigint FROM entitlements.partial_refunds
                WHERE app_id = \(harness.appID) AND original_transaction_id = \(packs.originalTransactionID)
                """)
            #expect(partial == 2)
        }
    }
}
