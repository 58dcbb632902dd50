import Foundation
import HummingbirdTesting
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// A session that holds a customer's lock and stops (a process killed in the middle of a transaction, a stuck one)
/// cannot hold the customer hostage: every wait is bounded.
@Suite("Bounded waits on a customer's lock")
struct BoundedWaitTests {
    /// Runs `body` while another session holds `user`'s customer lock in an open transaction on `settings`; then
    /// rolls it back (`release`), or leaves the session to be ended by the server or when its pool closes.
    static func whileLocked(
        _ user: String, harness: EntitlementsHarness, settings: DatabaseSettings, release: Bool = true,
        _ body: @Sendable () async throws -> Void
    ) async throws {
        try await TestDatabase.withClient(settings) { client in
            try await client.withConnection { connection in
                let logger = Logger(label: "holder")
                try await connection.run("BEGIN", logger: logger)
                try await connection.run(
                    """
                    SELECT entitlements.lock_customers(ARRAY(
                        SELECT customer_id FROM entitlements.aliases
                        WHERE app_id = \(harness.appID) AND app_user_id = \(user)))
                    """, logger: logger)
                try await body()
                if release { try await connection.run("ROLLBACK", logger: logger) }
            }
        }
    }

    @Test("While a stuck session holds the customer, a spend answers 503 database_unavailable after the lock timeout")
    func lockTimeoutIsA503() async throws {
        try await EntitlementsHarness.run(environment: ["SHOPKEEPER_DB_LOCK_TIMEOUT_MS": "300"]) { harness in
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")], user: "held")
            try await Self.whileLocked("held", harness: harness, settings: try TestDatabase.settings()) {
                let refused = try await harness.consume("held", quantity: 1, key: "during-the-hold")
                #expect(refused.status == .serviceUnavailable)
                #expect(refused.problemCode == "database_unavailable")
                #expect(refused.headers[.retryAfter] == "1")
                #expect(
                    try refused.violations(.post, "/v1/customers/{app_user_id}/consumables/{product_id}/consume") == [])
            }
            // Nothing was spent, and the same request goes through once the customer is free.
            #expect(try await harness.ledgerLines("held", reason: "consume") == [])
            let spent = try await harness.consume("held", quantity: 1, key: "during-the-hold")
            #expect(spent.status == .ok)
            #expect(try await harness.info("held").consumableBalances == ["seeds": 4])
        }
    }

    @Test("A session that stops in the middle of a transaction is ended, and the customer's requests go through")
    func stalledSessionIsEnded() async throws {
        try await EntitlementsHarness.run { harness in
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")], user: "stalled")
            var holder = try TestDatabase.settings()
            holder.idleInTransactionTimeoutMilliseconds = 300
            try await Self.whileLocked("stalled", harness: harness, settings: holder, release: false) {
                // The holder sends nothing more: PostgreSQL ends its session after 300 ms, which frees the lock well
                // within the spend's 5 s lock timeout.
                let spent = try await harness.consume("stalled", quantity: 2)
                #expect(spent.status == .ok)
            }
            #expect(try await harness.info("stalled").consumableBalances == ["seeds": 3])
        }
    }
}
