import Logging
import PostgresNIO
import ShopkeeperTestSupport
import Testing

@testable import ShopkeeperDatabase

@Suite struct MigrationRunnerTests {
    static let migrations = [
        Migration(
            "0001_things",
            sql: """
                -- a comment; with a semicolon
                CREATE TABLE mig_test.things (id bigint PRIMARY KEY, note text DEFAULT 'a;b');
                CREATE FUNCTION mig_test.twice(x integer) RETURNS integer AS $$ SELECT x * 2; $$ LANGUAGE sql;
                """
        ),
        Migration("0002_more", sql: "ALTER TABLE mig_test.things ADD COLUMN size integer;"),
    ]

    /// Runs `runner` as six replicas starting at once would, each with a client of its own.
    static func runAtOnce(_ runner: MigrationRunner, settings: DatabaseSettings) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await TestDatabase.withClient(settings) { client in
                        try await runner.run(client: client, logger: Logger(label: "test"))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func replicasMigratingAtOnceApplyEachMigrationOnce() async throws {
        try await TestDatabase.withFreshDatabase { settings in
            let runner = MigrationRunner(schema: "mig_test", migrations: Self.migrations)
            try await Self.runAtOnce(runner, settings: settings)
            try await TestDatabase.withClient(settings) { client in
                let rows = try await client.query("SELECT count(*)::int FROM mig_test.schema_migrations").collect()
                #expect(try rows.first?.decode(Int.self) == 2)
                let twice = try await client.query("SELECT mig_test.twice(21)").collect()
                #expect(try twice.first?.decode(Int.self) == 42)
                #expect(try await runner.pending(client: client, logger: Logger(label: "test")).isEmpty)
            }
        }
    }

    @Test func aChangedMigrationStopsTheStart() async throws {
        try await TestDatabase.withFreshDatabase { settings in
            try await TestDatabase.withClient(settings) { client in
                let logger = Logger(label: "test")
                try await MigrationRunner(schema: "mig_test", migrations: Self.migrations).run(
                    client: client, logger: logger)
                var edited = Self.migrations
                edited[1].sql = "ALTER TABLE mig_test.things ADD COLUMN weight integer;"
                await #expect(throws: MigrationError.self) {
                    try await MigrationRunner(schema: "mig_test", migrations: edited).run(
                        client: client, logger: logger)
                }
            }
        }
    }

    @Test func aFailingMigrationLeavesNothingBehind() async throws {
        try await TestDatabase.withFreshDatabase { settings in
            try await TestDatabase.withClient(settings) { client in
                let logger = Logger(label: "test")
                let broken = [
                    Migration("0001_broken", sql: "CREATE TABLE mig_test.a (id int); CREATE TABLE mig_test.a (id int);")
                ]
                await #expect(throws: (any Error).self) {
                    try await MigrationRunner(schema: "mig_test", migrations: broken).run(
                        client: client, logger: logger)
                }
                let exists = try await client.query("SELECT to_regclass('mig_test.a') IS NOT NULL").collect()
                #expect(try exists.first?.decode(Bool.self) == false)
                // The lock was released: a good migration set still applies.
                try await MigrationRunner(schema: "mig_test", migrations: Self.migrations).run(
                    client: client, logger: logger)
            }
        }
    }

    @Test func splitsStatementsOutsideQuotesAndBodies() {
        let statements = SQLStatementSplitter.split(Self.migrations[0].sql)
        #expect(statements.count == 2)
        #expect(statements[0].hasSuffix("DEFAULT 'a;b')"))
        #expect(statements[1].contains("$$ SELECT x * 2; $$"))
    }
}
