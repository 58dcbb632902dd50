import Logging
import PostgresNIO

/// Applies one service's migrations to its own schema, each in a transaction under a transaction-scoped PostgreSQL
/// advisory lock.
///
/// Replicas starting together queue on the lock; each migration is applied by whichever replica takes the lock first
/// and found applied by the others. Each migration runs in its own transaction with its bookkeeping row, so a crash
/// leaves either all of it or none, and the lock goes with the transaction: nothing here needs a session of its own,
/// so migrations run unchanged through a pooler in transaction mode (``DatabasePooler``). A migration already applied
/// whose SQL has since changed stops the start: migrations are forward only.
package struct MigrationRunner: Sendable {
    /// Lock key shared by every Shopkeeper service, so schema changes never interleave.
    static let advisoryLockKey: Int64 = 0x5348_4F50_4B45_4550

    package let schema: String
    package let migrations: [Migration]

    /// - Parameter schema: the service's schema, lowercase letters and `_` only (it is written into DDL).
    package init(schema: String, migrations: [Migration]) {
        precondition(
            !schema.isEmpty && schema.allSatisfy { $0.isLowercase || $0 == "_" },
            "schema names are constants of lowercase letters"
        )
        self.schema = schema
        self.migrations = migrations
    }

    /// Applies every missing migration, in order.
    ///
    /// What is applied is read first without the lock (a replica starting on an up-to-date schema takes no lock);
    /// each missing migration is then checked again and applied under the lock.
    package func run(client: PostgresClient, logger: Logger) async throws {
        var applied: [String: String] = [:]
        if try await tableExists(client: client, logger: logger) {
            applied = try await appliedChecksums(client: client, logger: logger)
        }
        for migration in migrations {
            if let checksum = applied[migration.name] {
                try check(migration, appliedWith: checksum)
            } else {
                try await applyUnderLock(migration, client: client, logger: logger)
            }
        }
    }

    /// Applies `migration` unless another replica has since: one transaction that first takes the lock.
    private func applyUnderLock(_ migration: Migration, client: PostgresClient, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            // Replicas starting together wait here for each other's migrations, and a migration may take long:
            // neither is bounded by the pool's timeouts (`SET LOCAL`: the transaction's own, gone at its end).
            try await connection.run("SET LOCAL lock_timeout = 0", logger: logger)
            try await connection.run("SET LOCAL statement_timeout = 0", logger: logger)
            try await connection.run("SELECT pg_advisory_xact_lock(\(Self.advisoryLockKey))", logger: logger)
            try await connection.run("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)", logger: logger)
            try await connection.run(
                """
                CREATE TABLE IF NOT EXISTS \(unescaped: schema).schema_migrations (
                    name text PRIMARY KEY,
                    checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                logger: logger
            )
            let rows = try await connection.checkedQuery(
                "SELECT checksum FROM \(unescaped: schema).schema_migrations WHERE name = \(migration.name)",
                logger: logger)
            var existing: String?
            for try await checksum in rows.decode(String.self) { existing = checksum }
            if let existing {
                try check(migration, appliedWith: existing)
                return
            }
            logger.info("applying migration", metadata: ["schema": "\(schema)", "migration": "\(migration.name)"])
            for statement in SQLStatementSplitter.split(migration.sql) {
                try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.run(
                """
                INSERT INTO \(unescaped: schema).schema_migrations (name, checksum)
                VALUES (\(migration.name), \(migration.checksum))
                """,
                logger: logger
            )
        }
    }

    private func check(_ migration: Migration, appliedWith checksum: String) throws(MigrationError) {
        guard checksum == migration.checksum else {
            throw MigrationError.changedAfterApply(schema: schema, name: migration.name)
        }
    }

    private func tableExists(client: PostgresClient, logger: Logger) async throws -> Bool {
        try await client.query(
            "SELECT to_regclass(\(schema + ".schema_migrations")) IS NOT NULL",
            logger: logger
        ).collect().first?.decode(Bool.self) ?? false
    }

    /// Names of the migrations this code knows that the database has not applied (empty when up to date).
    package func pending(client: PostgresClient, logger: Logger) async throws -> [String] {
        guard try await tableExists(client: client, logger: logger) else { return migrations.map(\.name) }
        let applied = try await appliedChecksums(client: client, logger: logger)
        return migrations.map(\.name).filter { applied[$0] == nil }
    }

    private func appliedChecksums(client: PostgresClient, logger: Logger) async throws -> [String: String] {
        var applied: [String: String] = [:]
        let rows = try await client.query(
            "SELECT name, checksum FROM \(unescaped: schema).schema_migrations",
            logger: logger
        )
        for try await (name, checksum) in rows.decode((String, String).self) {
            applied[name] = checksum
        }
        return applied
    }
}

/// Why migrations could not be applied.
package enum MigrationError: Error, CustomStringConvertible {
    /// A migration that the database already applied has different SQL now.
    case changedAfterApply(schema: String, name: String)

    package var description: String {
        switch self {
        case .changedAfterApply(let schema, let name):
            "migration \(schema)/\(name) was changed after it was applied; add a new migration instead"
        }
    }
}
