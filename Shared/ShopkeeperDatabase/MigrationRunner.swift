import Logging
import PostgresNIO

/// Applies one service's migrations to its own schema, under a PostgreSQL advisory lock.
///
/// Replicas starting together queue on the lock; the first applies what is missing, the others then find nothing
/// to do. Each migration runs in its own transaction with its bookkeeping row, so a crash leaves either all of it
/// or none. A migration already applied whose SQL has since changed stops the start: migrations are forward only.
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

    /// Applies every missing migration.
    package func run(client: PostgresClient, logger: Logger) async throws {
        try await client.withConnection { connection in
            // Replicas starting together wait here for each other's migrations, and a migration may take long:
            // neither is bounded by the pool's timeouts, which are restored before the connection goes back.
            try await connection.run("SET lock_timeout = 0", logger: logger)
            try await connection.run("SET statement_timeout = 0", logger: logger)
            do {
                try await applyUnderLock(connection: connection, logger: logger)
            } catch {
                try? await connection.run("RESET lock_timeout", logger: logger)
                try? await connection.run("RESET statement_timeout", logger: logger)
                throw error
            }
            try await connection.run("RESET lock_timeout", logger: logger)
            try await connection.run("RESET statement_timeout", logger: logger)
        }
    }

    private func applyUnderLock(connection: PostgresConnection, logger: Logger) async throws {
        _ = try await connection.checkedQuery("SELECT pg_advisory_lock(\(Self.advisoryLockKey))", logger: logger)
        do {
            try await applyMissing(connection: connection, logger: logger)
        } catch {
            _ = try? await connection.checkedQuery(
                "SELECT pg_advisory_unlock(\(Self.advisoryLockKey))", logger: logger)
            throw error
        }
        _ = try await connection.checkedQuery("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))", logger: logger)
    }

    /// Names of the migrations this code knows that the database has not applied (empty when up to date).
    package func pending(client: PostgresClient, logger: Logger) async throws -> [String] {
        let exists =
            try await client.query(
                "SELECT to_regclass(\(schema + ".schema_migrations")) IS NOT NULL",
                logger: logger
            ).collect().first?.decode(Bool.self) ?? false
        guard exists else { return migrations.map(\.name) }
        let applied = try await appliedChecksums(client: client, logger: logger)
        return migrations.map(\.name).filter { applied[$0] == nil }
    }

    private func applyMissing(connection: PostgresConnection, logger: Logger) async throws {
        try await connection.checkedQuery("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)", logger: logger)
        try await connection.checkedQuery(
            """
            CREATE TABLE IF NOT EXISTS \(unescaped: schema).schema_migrations (
                name text PRIMARY KEY,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            logger: logger
        )
        var applied: [String: String] = [:]
        let rows = try await connection.checkedQuery(
            "SELECT name, checksum FROM \(unescaped: schema).schema_migrations",
            logger: logger
        )
        for try await (name, checksum) in rows.decode((String, String).self) {
            applied[name] = checksum
        }
        for migration in migrations {
            if let checksum = applied[migration.name] {
                guard checksum == migration.checksum else {
                    throw MigrationError.changedAfterApply(schema: schema, name: migration.name)
                }
                continue
            }
            logger.info("applying migration", metadata: ["schema": "\(schema)", "migration": "\(migration.name)"])
            try await connection.transaction(logger: logger) { connection in
                for statement in SQLStatementSplitter.split(migration.sql) {
                    try await connection.checkedQuery(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.checkedQuery(
                    """
                    INSERT INTO \(unescaped: schema).schema_migrations (name, checksum)
                    VALUES (\(migration.name), \(migration.checksum))
                    """,
                    logger: logger
                )
            }
        }
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
