import Foundation
import Logging
import PostgresNIO
import ShopkeeperTestSupport
import Testing

@testable import Subscriptions

/// Migration `0008_trial_conversions`: the app trials' conversions that entitlements recorded before the subscriptions
/// service owned them are copied once, so the subscriptions report shows them after the upgrade; on a new database
/// (no entitlements table yet) there is nothing to copy and the migration still applies.
@Suite struct TrialConversionMigrationTests {
    static let logger = Logger(label: "trial-conversion-migration-test")

    @Test("Conversions recorded by entitlements before the upgrade are in subscriptions' table after it")
    func copiesEntitlementsConversions() async throws {
        try await TestDatabase.withFreshDatabase { settings in
            try await TestDatabase.withClient(settings) { client in
                // entitlements.trial_conversions as entitlements' migration 0011 created it, with one conversion.
                try await client.query("CREATE SCHEMA entitlements", logger: Self.logger)
                try await client.query(
                    """
                    CREATE TABLE entitlements.trial_conversions (
                        app_id text NOT NULL, customer_id uuid NOT NULL, product_id text NOT NULL,
                        transaction_id text NOT NULL, converted_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (app_id, customer_id))
                    """, logger: Self.logger)
                let customer = UUID()
                let convertedAt = Date(timeIntervalSince1970: 1_800_000_000)
                try await client.query(
                    """
                    INSERT INTO entitlements.trial_conversions (app_id, customer_id, product_id, transaction_id,
                                                                converted_at)
                    VALUES ('app-1', \(customer), 'pro_monthly', 'tx-1', \(convertedAt))
                    """, logger: Self.logger)
                try await SubscriptionsMigrations.runner.run(client: client, logger: Self.logger)

                let rows = try await client.query(
                    """
                    SELECT app_id, customer_id, product_id, transaction_id, converted_at
                    FROM subscriptions.trial_conversions
                    """, logger: Self.logger)
                var copied: [(String, UUID, String, String, Date)] = []
                for try await row in rows.decode((String, UUID, String, String, Date).self) { copied.append(row) }
                #expect(copied.count == 1)
                #expect(copied.first?.0 == "app-1" && copied.first?.1 == customer)
                #expect(copied.first?.2 == "pro_monthly" && copied.first?.3 == "tx-1")
                #expect(copied.first?.4 == convertedAt)
            }
        }
    }

    @Test("On a new database the migration applies with nothing to copy")
    func newDatabase() async throws {
        try await TestDatabase.withMigratedDatabase([SubscriptionsMigrations.runner], logger: Self.logger) { client in
            let rows = try await client.query(
                "SELECT count(*) FROM subscriptions.trial_conversions", logger: Self.logger)
            var counts: [Int64] = []
            for try await count in rows.decode(Int64.self) { counts.append(count) }
            #expect(counts == [0])
        }
    }
}
