import Logging
import PostgresNIO
import ShopkeeperTestSupport
import Testing

@testable import ShopkeeperDatabase

@Suite struct RoutineTests {
    /// A statement with parameters out of order, used twice, one an array.
    enum Upsert: PreparedSQL {
        static let sql = """
            INSERT INTO mig_test.things (id, note) VALUES ($2::bigint, $1::text || array_length($3::text[], 1))
            ON CONFLICT (id) DO UPDATE SET note = excluded.note || $1
            RETURNING id, note
            """
    }

    static let upsert = Routine(
        schema: "mig_test", base: "upsert_thing", returns: "TABLE (thing_id bigint, thing_note text)",
        answering: Upsert.self)

    /// A routine calling another with its own arguments, as the entitlements' apply calls its insert.
    static let twiceUpserted = Routine(
        schema: "mig_test", base: "upsert_twice", parameters: "p_id bigint", returns: "SETOF text",
        body: """
            BEGIN
                PERFORM \(upsert.name)('a', p_id, ARRAY['x']);
                RETURN QUERY SELECT u.thing_note FROM \(upsert.name)('b', p_id, ARRAY['x', 'y']) AS u;
            END
            """)

    @Test func parameterTypesComeFromTheirCasts() {
        #expect(Routine.parameterTypes(of: Upsert.sql) == ["text", "bigint", "text[]"])
        #expect(Routine.parameterTypes(of: "SELECT 1") == [])
        #expect(
            Routine.parameterTypes(
                of: "SELECT $1::timestamptz, $1, $10::uuid, $2::int, $3::int, $4::int, "
                    + "$5::int, $6::int, $7::int, $8::int, $9::int")
                == ["timestamptz", "int", "int", "int", "int", "int", "int", "int", "int", "uuid"])
    }

    @Test func aNewDefinitionIsANewName() {
        let changed = Routine(
            schema: "mig_test", base: "upsert_twice", parameters: "p_id bigint", returns: "SETOF text",
            body: "BEGIN RETURN QUERY SELECT 'c'; END")
        #expect(changed.name != Self.twiceUpserted.name)
        #expect(changed.name.hasPrefix("mig_test.upsert_twice_"))
        #expect(changed.unqualifiedName.utf8.count < 64)
    }

    @Test func replicasStartingAtOnceInstallEachRoutineOnce() async throws {
        try await TestDatabase.withFreshDatabase { settings in
            let runner = MigrationRunner(
                schema: "mig_test", migrations: MigrationRunnerTests.migrations,
                routines: [Self.upsert, Self.twiceUpserted])
            try await MigrationRunnerTests.runAtOnce(runner, settings: settings)
            try await TestDatabase.withClient(settings) { client in
                let notes = try await client.query("SELECT * FROM \(unescaped: Self.twiceUpserted.name)(7)").collect()
                #expect(try notes.map { try $0.decode(String.self) } == ["b2b"])
                let names = try await client.query(
                    """
                    SELECT count(*)::int FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                    WHERE n.nspname = 'mig_test' AND p.proname LIKE 'upsert_%'
                    """
                ).collect()
                #expect(try names.first?.decode(Int.self) == 2)

                // A routine that is gone is pending, until a start or the next readiness check installs it again.
                let logger = Logger(label: "test")
                #expect(try await runner.pending(client: client, logger: logger).isEmpty)
                try await client.query("DROP FUNCTION \(unescaped: Self.upsert.name)").collect()
                #expect(try await runner.pending(client: client, logger: logger) == [Self.upsert.name])
                try await runner.run(client: client, logger: logger)
                #expect(try await runner.pending(client: client, logger: logger).isEmpty)
                try await client.query("DROP FUNCTION \(unescaped: Self.upsert.name)").collect()
                #expect(try await runner.pendingAfterRestoringRoutines(client: client, logger: logger).isEmpty)
                #expect(try await runner.pending(client: client, logger: logger).isEmpty)
                let restored = try await client.query("SELECT * FROM \(unescaped: Self.twiceUpserted.name)(8)")
                    .collect()
                #expect(try restored.map { try $0.decode(String.self) } == ["b2b"])

                // With a migration pending (a newer build's, say), the readiness check installs nothing.
                let newer = MigrationRunner(
                    schema: "mig_test",
                    migrations: MigrationRunnerTests.migrations + [
                        Migration("9999_later", sql: "CREATE TABLE mig_test.later (id int)")
                    ],
                    routines: [Self.upsert, Self.twiceUpserted])
                try await client.query("DROP FUNCTION \(unescaped: Self.upsert.name)").collect()
                #expect(
                    try await newer.pendingAfterRestoringRoutines(client: client, logger: logger)
                        == ["9999_later", Self.upsert.name])
                try await runner.run(client: client, logger: logger)
            }
        }
    }
}
