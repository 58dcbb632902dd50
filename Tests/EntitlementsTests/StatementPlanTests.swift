import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperStoredCustomerInfo
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// The statements on the hot paths (customer info at every app launch, the lookups of every apply) must find each of
/// their rows through an index, however many customers and purchases the database holds: a scan of a table of every
/// app's customers costs milliseconds per call at a few hundred thousand rows (the merged customers were read that
/// way, the whole cost of a read in the many-customers benchmark; the owners of an apply's purchases were hashed
/// from the whole purchases table, the largest cost of a purchase). Each statement is planned as a prepared statement
/// settles on after its first executions (a generic plan), on a fresh database, with sequential scans priced out
/// (`enable_seqscan = off`), so any table read without a usable index still shows as one in the plan.
@Suite struct StatementPlanTests {
    @Test(
        "The customer info statements read every per-customer table through an index, the stored version once",
        arguments: [
            CustomerInfoQuery.RenderAndStore.sql, CustomerInfoQuery.TouchRenderAndStore.sql,
            CustomerInfoQuery.PlainTouchRenderAndStore.sql,
        ])
    func customerInfoThroughIndexes(sql: String) async throws {
        try await Self.planAfterAPurchase(
            of: sql, types: "text, text", arguments: { "'\($0)', 'planned'" }
        ) { plan in
            #expect(Self.perCustomerScans(in: plan).isEmpty, "\(plan.joined(separator: "\n"))")
            // `k`: the stored row whose version the render stores with the body
            // (``CustomerInfoQuery/stored(subscriptionsStamp:catalogProducts:)``). Each read of it is a lookup, and a
            // whole scan of the table under a plan made while it was nearly empty.
            #expect(
                plan.filter { $0.contains(" on customer_documents k") }.count == 1, "\(plan.joined(separator: "\n"))")
        }
    }

    @Test(
        "Customer info gets subscriptions' state rule inlined (subscriptions.effective_state), not called per row",
        arguments: [CustomerInfoQuery.RenderAndStore.sql, CustomerInfoQuery.Render.sql])
    func subscriptionStateInlined(sql: String) async throws {
        try await Self.planAfterAPurchase(
            of: sql, types: "text, text", arguments: { "'\($0)', 'planned'" }, options: "VERBOSE, COSTS OFF"
        ) { plan in
            let text = plan.joined(separator: "\n")
            #expect(text.contains("subscriptions.subscriptions"), "\(text)")
            #expect(!text.contains("effective_state"), "\(text)")
            #expect(!text.contains("grants_access"), "\(text)")
        }
    }

    @Test("An app launch reads the stored info, and what tells it is still good, through indexes")
    func storedInfoThroughIndexes() async throws {
        try await Self.planAfterAPurchase(
            of: StoredCustomerInfoRead.sql, types: "text, text, float8", arguments: { "'\($0)', 'planned', 600" }
        ) { plan in
            // The published function is inlined (planned with the statement), not called per execution.
            #expect(!plan.contains { $0.contains("Function Scan") }, "\(plan.joined(separator: "\n"))")
            #expect(plan.contains { $0.contains("customer_documents") }, "\(plan.joined(separator: "\n"))")
            #expect(Self.perCustomerScans(in: plan).isEmpty, "\(plan.joined(separator: "\n"))")
        }
    }

    @Test("The gateway's batched launches read the stored info through indexes, the published function inlined")
    func storedInfoBatchThroughIndexes() async throws {
        try await Self.planAfterAPurchase(
            of: StoredCustomerInfoRead.Batch.sql, types: "text[], text[], float8",
            arguments: { "ARRAY['\($0)', '\($0)'], ARRAY['planned', 'other'], 600" }
        ) { plan in
            #expect(!plan.contains { $0.contains("stored_customer_info_v2") }, "\(plan.joined(separator: "\n"))")
            #expect(plan.contains { $0.contains("customer_documents") }, "\(plan.joined(separator: "\n"))")
            #expect(Self.perCustomerScans(in: plan).isEmpty, "\(plan.joined(separator: "\n"))")
        }
    }

    @Test("An apply finds the owners of its purchases through the primary key, and their products by key")
    func purchaseOwnersThroughTheKey() async throws {
        // What `entitlements.apply_start_v1` reads (``ApplyStart/Statement``, ``NewPurchaseApply``), with its
        // parameters: the function it calls for it is inlined into its statement, planned as here.
        let lookup = "SELECT * FROM entitlements.apply_lookup_v1($1::text, $3::text, $4::text, $5::text)"
        try await Self.planAfterAPurchase(
            of: lookup, types: "text, text, text, text, text",
            arguments: { "'\($0)', 'planned', 'app_store', '1000', 'com.test.garden'" }
        ) { plan in
            #expect(!plan.contains { $0.contains("Function Scan") }, "\(plan.joined(separator: "\n"))")
            #expect(plan.contains { $0.contains(" on purchases ") }, "\(plan.joined(separator: "\n"))")
            #expect(Self.perCustomerScans(in: plan).isEmpty, "\(plan.joined(separator: "\n"))")
            #expect(!plan.contains { $0.contains("Hash") }, "\(plan.joined(separator: "\n"))")
        }
    }

    /// Checks the generic plan of `sql` (see ``genericPlan(of:types:arguments:options:database:)``; `arguments` from the app
    /// id) in an app whose customer `planned` bought a product.
    static func planAfterAPurchase(
        of sql: String, types: String, arguments: @escaping @Sendable (String) -> String,
        options: String = "COSTS OFF", _ check: @escaping @Sendable ([String]) -> Void
    ) async throws {
        try await EntitlementsHarness.run { harness in
            _ = try await harness.applied(
                [EntitlementsFixtures.transaction(product: "garden")], user: "planned", device: "device-1")
            check(
                try await genericPlan(
                    of: sql, types: types, arguments: arguments(harness.appID), options: options,
                    database: harness.database))
        }
    }

    /// Tables of the catalog and the app's settings are per app and small; these are per customer.
    static let perCustomerTables = [
        "customers", "aliases", "purchases", "transactions", "balances", "promotional_grants",
        "app_transactions", "subscriptions", "trials", "purchase_devices", "customer_documents",
    ]

    /// Lines of `plan` that read a per-customer table whole, or every row of the app (an index on `app_id` alone).
    static func perCustomerScans(in plan: [String]) -> [String] {
        plan.indices.filter { index in
            let line = plan[index]
            let table = perCustomerTables.first { line.hasSuffix(" on \($0)") || line.contains(" on \($0) ") }
            guard let table, line.contains("Scan") else { return false }
            if line.contains("Seq Scan on \(table)") { return true }
            let next = index + 1 < plan.count ? plan[index + 1] : ""
            return next.hasSuffix("Cond: (app_id = $1)")
        }.map { plan[$0] }
    }

    /// The generic plan of `sql` (parameters of `types`) executed with `arguments` (SQL literals: EXPLAIN EXECUTE takes
    /// no parameters; tests pass their own ids only), sequential scans priced out.
    static func genericPlan(
        of sql: String, types: String, arguments: String, options: String = "COSTS OFF", database: DatabaseSettings
    ) async throws -> [String] {
        #expect(!arguments.contains(";"))
        return try await TestDatabase.withClient(database) { client in
            let logger = Logger(label: "plan-test")
            return try await client.withConnection { connection in
                try await connection.query("SET enable_seqscan = off", logger: logger)
                try await connection.query(
                    PostgresQuery(unsafeSQL: "PREPARE planned(\(types)) AS " + sql), logger: logger)
                try await connection.query("SET plan_cache_mode = force_generic_plan", logger: logger)
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "EXPLAIN (\(options)) EXECUTE planned(\(arguments))"), logger: logger)
                var plan: [String] = []
                for try await line in rows.decode(String.self) { plan.append(line) }
                try await connection.query("DEALLOCATE planned", logger: logger)
                return plan
            }
        }
    }
}
