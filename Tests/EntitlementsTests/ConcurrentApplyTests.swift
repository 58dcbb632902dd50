import Foundation
import HummingbirdTesting
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite("Concurrent applies across replicas")
struct ConcurrentApplyTests {
    /// Owners, credits and balances of one purchase, read from the database.
    struct Ledgered: Equatable {
        var owners: Int
        var purchaseLines: Int
        var balanceTotal: Int64
        var ledgerTotal: Int64
    }

    static func ledgered(_ purchase: StoreTransaction, appID: String) async throws -> Ledgered {
        try await TestDatabase.withClient { client in
            let rows = try await client.query(
                """
                SELECT
                    (SELECT count(*) FROM entitlements.purchases
                     WHERE store = 'app_store' AND original_transaction_id = \(purchase.originalTransactionID)),
                    (SELECT count(*) FROM entitlements.ledger
                     WHERE app_id = \(appID) AND reason = 'purchase' AND transaction_id = \(purchase.transactionID)),
                    (SELECT coalesce(sum(balance), 0)::bigint FROM entitlements.balances WHERE app_id = \(appID)),
                    (SELECT coalesce(sum(delta), 0)::bigint FROM entitlements.ledger WHERE app_id = \(appID))
                """)
            for try await (owners, lines, balances, ledger) in rows.decode((Int64, Int64, Int64, Int64).self) {
                return Ledgered(
                    owners: Int(owners), purchaseLines: Int(lines), balanceTotal: balances, ledgerTotal: ledger)
            }
            throw HarnessError("no row")
        }
    }

    @Test(
        "50 submissions of one consumable, two customers, two replicas: one owner, one credit",
        arguments: ["transfer", "keep_with_original"])
    func oneOwnerOneCredit(policy: String) async throws {
        try await EntitlementsHarness.run(replicas: 2) { harness in
            try await setPolicy(policy, appID: harness.appID)
            let purchase = EntitlementsFixtures.transaction(product: "seeds")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        try await harness.apply(
                            [purchase], user: index % 2 == 0 ? "alice" : "bob", device: "device-\(index % 2)",
                            replica: index % 4 < 2 ? 0 : 1, atOnce: true
                        ).status.code
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            // The first to commit owns it whatever the policy (a consumable's units stay with their first
            // presenter); every submission by the other customer is refused.
            #expect(Set(statuses).isSubset(of: [200, 409]))
            #expect(statuses.filter { $0 == 200 }.count == 25)
            let state = try await Self.ledgered(purchase, appID: harness.appID)
            #expect(state == Ledgered(owners: 1, purchaseLines: 1, balanceTotal: 5, ledgerTotal: 5))
            let alice = try await harness.info("alice")
            let bob = try await harness.info("bob")
            let owners = [alice, bob].filter { !$0.nonSubscriptionPurchases.isEmpty }
            #expect(owners.count == 1)
            #expect(owners.first?.consumableBalances == ["seeds": 5])
        }
    }

    @Test("The same customer's first purchase submitted 20 times at once creates one customer and one grant")
    func firstSightRace() async throws {
        try await EntitlementsHarness.run(replicas: 2) { harness in
            let purchase = EntitlementsFixtures.transaction(product: "garden")
            let outcomes = try await withThrowingTaskGroup(of: [ApplyOutcome].self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let response = try await harness.apply(
                            [purchase], user: "fresh", replica: index % 2, atOnce: true)
                        guard response.status == .ok else { throw HarnessError("status \(response.status)") }
                        return try TestJSON.decode(ApplyResponse.self, response.body.readableBytesView).outcomes.map(
                            \.outcome)
                    }
                }
                var all: [ApplyOutcome] = []
                for try await outcome in group { all += outcome }
                return all
            }
            #expect(outcomes.filter { $0 == .granted }.count == 1)
            #expect(outcomes.filter { $0 == .alreadyApplied }.count == 19)
            #expect(
                try await harness.count("SELECT count(*) FROM entitlements.customers WHERE app_id = \(harness.appID)")
                    == 1)
        }
    }

    @Test("64 purchases of one customer at once, on two replicas: every one 200, each credited once, no deadlock")
    func manyPurchasesOfOneCustomer() async throws {
        // A database of its own, so that the deadlock count is this test's alone.
        try await TestDatabase.withFreshDatabase { database in
            try await manyPurchasesOfOneCustomer(database: database)
            // PostgreSQL breaks a deadlock after a second and the transaction is run again, so a deadlock costs
            // time, not correctness: the count is how the design's claim (none can happen) is checked.
            #expect(try await TestDatabase.deadlocks(database) == 0)
        }
    }

    private func manyPurchasesOfOneCustomer(database: DatabaseSettings) async throws {
        try await EntitlementsHarness.run(replicas: 2, environment: ["DATABASE_URL": database.url]) { harness in
            let purchases = (0..<64).map { _ in EntitlementsFixtures.transaction(product: "seeds") }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, purchase) in purchases.enumerated() {
                    group.addTask {
                        try await harness.apply(
                            [purchase], user: "busy", device: "device-1", replica: index % 2, atOnce: true
                        ).status.code
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses == Array(repeating: 200, count: 64))
            #expect(try await harness.info("busy").consumableBalances == ["seeds": 320])
            let credits = try await harness.count(
                "SELECT count(*) FROM entitlements.ledger WHERE app_id = \(harness.appID) AND reason = 'purchase'")
            #expect(credits == 64)
            #expect(try await harness.ledgerMismatches().isEmpty)
        }
    }
}
