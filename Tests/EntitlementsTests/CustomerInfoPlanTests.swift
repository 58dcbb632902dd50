import Foundation
import Logging
import PostgresNIO
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// Customer info is read at every app launch, so its statement must find each of its rows through an index, however
/// many customers the database holds: a scan of a table of every app's customers costs milliseconds per read at a
/// few hundred thousand (the merged customers were read that way, the whole cost of a read in the many-customers
/// benchmark). Sequential scans are priced out (`enable_seqscan = off`), so any table read without a usable index
/// still shows as one in the plan.
@Suite struct CustomerInfoPlanTests {
    @Test("The customer info statement reads every per-customer table through an index")
    func everyTableThroughAnIndex() async throws {
        try await EntitlementsHarness.run { harness in
            _ = try await harness.applied(
                [EntitlementsFixtures.transaction(product: "garden")], user: "planned", device: "device-1")
            try await TestDatabase.withClient(harness.database) { client in
                let logger = Logger(label: "plan-test")
                try await client.withConnection { connection in
                    try await connection.query("SET enable_seqscan = off", logger: logger)
                    try await connection.query(
                        PostgresQuery(
                            unsafeSQL: "PREPARE customer_info_plan(text, text) AS "
                                + CustomerInfoQuery.Statement.sql),
                        logger: logger)
                    // A generic plan: the one a prepared statement settles on after its first executions.
                    try await connection.query("SET plan_cache_mode = force_generic_plan", logger: logger)
                    // EXPLAIN EXECUTE takes no parameters: the app id is a test's own (letters, digits, `_`).
                    #expect(harness.appID.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" })
                    let rows = try await connection.query(
                        PostgresQuery(
                            unsafeSQL: "EXPLAIN (COSTS OFF) EXECUTE customer_info_plan('\(harness.appID)', 'planned')"),
                        logger: logger)
                    var plan: [String] = []
                    for try await line in rows.decode(String.self) { plan.append(line) }
                    let scans = plan.filter { $0.contains("Seq Scan on") }
                    // Tables of the catalog and the app's settings are per app and small; the rest are per customer.
                    let perCustomer = [
                        "customers", "aliases", "purchases", "transactions", "balances", "promotional_grants",
                        "app_transactions", "subscriptions", "trials", "purchase_devices",
                    ]
                    let offending = scans.filter { line in
                        perCustomer.contains {
                            line.contains("Seq Scan on \($0) ") || line.hasSuffix("Seq Scan on \($0)")
                        }
                    }
                    #expect(offending.isEmpty, "\(plan.joined(separator: "\n"))")
                    try await connection.query("DEALLOCATE customer_info_plan", logger: logger)
                }
            }
        }
    }
}
