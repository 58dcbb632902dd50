import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// A purchase seen for the first time is applied in one call of a database function (``NewPurchaseApply``) that must
/// do exactly what the full apply does for it, and decline, writing nothing of the purchase, whatever it does not
/// handle.
@Suite struct NewPurchaseApplyTests {
    static let logger = Logger(label: "new-purchase-apply-tests")

    /// Runs the routine for one transaction presented by `user`.
    static func run(_ transaction: StoreTransaction, user: String, harness: EntitlementsHarness) async throws
        -> NewPurchaseApply.Applied?
    {
        let request = ApplyRequest(
            appUserID: user, deviceID: "device-1", source: .purchase, transactions: [transaction])
        return try await TestDatabase.withClient(harness.database) { client in
            try await NewPurchaseApply.run(request, appID: harness.appID, client: client, logger: logger)
        }
    }

    /// What the database holds of `user`'s purchases, each as text to compare: type, credit, device, build, the
    /// transaction row, and their events' types and payloads without the transaction's ids.
    static func recorded(_ user: String, harness: EntitlementsHarness) async throws -> [String] {
        try await TestDatabase.withClient(harness.database) { client in
            let rows = try await client.query(
                """
                SELECT p.product_type || ' ' || coalesce(p.product_id, '-') || ' credited '
                       || coalesce(p.credited::text, '-') || ' ' || coalesce(p.app_version, '-') || ' devices '
                       || (SELECT count(*) FROM entitlements.purchase_devices d
                           WHERE d.store = p.store AND d.original_transaction_id = p.original_transaction_id)
                       || ' transactions ' || (SELECT count(*) FROM entitlements.transactions t
                           WHERE t.store = p.store AND t.original_transaction_id = p.original_transaction_id)
                       || ' events ' || coalesce((
                           SELECT string_agg(e.type || (e.payload - 'transaction_id' - 'original_transaction_id')::text,
                                             '; ' ORDER BY e.type)
                           FROM entitlements.events e
                           WHERE e.customer_id = p.customer_id
                             AND e.payload ->> 'original_transaction_id' = p.original_transaction_id), '-')
                FROM entitlements.purchases p
                JOIN entitlements.aliases a ON a.customer_id = p.customer_id
                WHERE a.app_id = \(harness.appID) AND a.app_user_id = \(user)
                ORDER BY p.store_product_id
                """)
            var lines: [String] = []
            for try await line in rows.decode(String.self) { lines.append(line) }
            return lines
        }
    }

    @Test("A new consumable, non-consumable or unknown product is applied by the routine as the full apply does it")
    func appliesAsTheFullApply() async throws {
        try await EntitlementsHarness.run { harness in
            // The same purchases (same dates) for two customers, with their own transaction ids.
            let purchases = ["seeds", "garden", "unknown_thing"].map {
                EntitlementsFixtures.transaction(product: $0, quantity: 2)
            }
            var outcomes: [ApplyOutcome] = []
            for purchase in purchases {
                let applied = try #require(try await Self.run(purchase, user: "quick", harness: harness))
                outcomes.append(applied.outcome.outcome)
                // Its answer is the customer's info as committed: what a launch reads (once the service, which this
                // call went around, has its change notification).
                let info = try TestJSON.decode(CustomerInfo.self, Data(try #require(applied.info).utf8))
                try await eventually("the service answers the info the routine committed") {
                    try await harness.info("quick") == info
                }
            }
            #expect(outcomes == [.credited, .granted, .unknownProduct])
            // The full apply (a batch of the same purchases is never the routine's) records the same.
            let batch = try await harness.applied(
                purchases.map { purchase in
                    var other = purchase
                    other.transactionID = UUID().uuidString
                    other.originalTransactionID = other.transactionID
                    return other
                }, user: "full")
            #expect(batch.outcomes.map(\.outcome) == [.credited, .granted, .unknownProduct])
            let quick = try await Self.recorded("quick", harness: harness)
            #expect(quick.count == 3)
            let full = try await Self.recorded("full", harness: harness)
            #expect(quick == full, "\(quick) vs \(full)")
            #expect(quick.contains { $0.hasPrefix("consumable seeds credited 10 - devices 1 transactions 1") })
            #expect(try await harness.info("quick").consumableBalances == ["seeds": 10])
            #expect(try await harness.ledgerMismatches() == [])
        }
    }

    @Test("What the routine does not handle it declines, writing nothing of the purchase; the full apply answers it")
    func declines() async throws {
        try await EntitlementsHarness.run { harness in
            // A purchase that exists: presented again, it is the full apply's (and credited once).
            let seeds = EntitlementsFixtures.transaction(product: "seeds")
            #expect(try await Self.run(seeds, user: "buyer", harness: harness) != nil)
            #expect(try await Self.run(seeds, user: "buyer", harness: harness) == nil)
            #expect(try await harness.applied([seeds], user: "buyer").outcomes.map(\.outcome) == [.alreadyApplied])
            #expect(try await harness.info("buyer").consumableBalances == ["seeds": 5])

            // A subscription: its trial's conversion is the full apply's step.
            let monthly = EntitlementsFixtures.transaction(
                product: "pro_monthly", expires: Date().addingTimeInterval(3_600))
            #expect(try await Self.run(monthly, user: "subscriber", harness: harness) == nil)
            #expect(try await Self.recorded("subscriber", harness: harness) == [])
            let year = EntitlementsFixtures.transaction(product: "pro_year")
            #expect(try await Self.run(year, user: "subscriber", harness: harness) == nil)
            #expect(try await Self.recorded("subscriber", harness: harness) == [])

            // A test purchase the app does not accept: the full apply refuses it.
            #expect(try await harness.putSettings(#"{"accept_sandbox": false}"#).status == .ok)
            let garden = EntitlementsFixtures.transaction(product: "garden", environment: .sandbox)
            #expect(try await Self.run(garden, user: "tester", harness: harness) == nil)
            #expect(try await Self.recorded("tester", harness: harness) == [])
            let refused = try await harness.apply([garden], user: "tester")
            #expect(refused.problemCode == "sandbox_not_accepted")
            #expect(try await Self.recorded("tester", harness: harness) == [])
        }
    }

    @Test("Twenty presentations of one new purchase at once: one insert, one credit, every answer the same balance")
    func racingPresentations() async throws {
        try await EntitlementsHarness.run(replicas: 2) { harness in
            let seeds = EntitlementsFixtures.transaction(product: "seeds", quantity: 3)
            let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        UInt(
                            try await harness.apply([seeds], user: "racer", replica: index % 2, atOnce: true).status
                                .code)
                    }
                }
                return try await group.reduce(into: [UInt]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 20))
            #expect(try await harness.info("racer").consumableBalances == ["seeds": 15])
            #expect(try await harness.ledgerLines("racer", reason: "purchase") == [15])
            let recorded = try await Self.recorded("racer", harness: harness)
            #expect(recorded.count == 1)
            #expect(recorded.first?.contains("devices 1 transactions 1 events consumable_purchase") == true)
            #expect(try await harness.ledgerMismatches() == [])
        }
    }

    @Test("The apply's functions spell product types, event types and ledger reasons as the Swift enums do")
    func literalsAreTheEnumsWords() {
        // The migration's code without its comments (which have apostrophes of their own), then its quoted literals.
        let code = EntitlementsMigrations.newPurchaseApply.flatMap { migration in
            migration.sql.split(separator: "\n").map { line in
                line.split(separator: "--", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            }
        }.joined(separator: "\n")
        let quoted = code.split(separator: "'", omittingEmptySubsequences: false)
        let literals = Set(stride(from: 1, to: quoted.count, by: 2).map { String(quoted[$0]) })
        let words = Set(
            ProductType.allCases.map(\.rawValue) + EventType.allCases.map(\.rawValue) + [
                Ledger.Reason.purchase.rawValue, "unknown", StoreEnvironment.production.rawValue,
                // The event payload's keys, an empty object, no catalog type.
                "product_id", "quantity", "balance", "{}", "",
            ])
        #expect(literals.subtracting(words).isEmpty, "\(literals.subtracting(words).sorted())")
        let used: [String] =
            [ProductType.consumable, .autoRenewable, .nonRenewing].map(\.rawValue)
            + [EventType.consumablePurchase, .initialPurchase, .nonRenewingPurchase].map(\.rawValue)
        #expect(used.allSatisfy(literals.contains), "\(literals.sorted())")
    }
}
