import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase

/// The PostgreSQL the tests use: `SHOPKEEPER_TEST_DATABASE_URL`, which `scripts/test` sets to a throwaway cluster.
package enum TestDatabase {
    package struct NotConfigured: Error, CustomStringConvertible {
        package var description: String {
            "SHOPKEEPER_TEST_DATABASE_URL is not set: run the tests with scripts/test, which starts a throwaway PostgreSQL"
        }
    }

    /// The shared test database (services migrate it themselves; tests isolate by creating their own apps).
    package static func settings() throws -> DatabaseSettings {
        guard let url = EnvironmentReader().raw("SHOPKEEPER_TEST_DATABASE_URL") else { throw NotConfigured() }
        return try DatabaseSettings.parse(url, variable: "SHOPKEEPER_TEST_DATABASE_URL")
    }

    /// The shared database's URL.
    package static func url() throws -> String {
        guard let url = EnvironmentReader().raw("SHOPKEEPER_TEST_DATABASE_URL") else { throw NotConfigured() }
        return url
    }

    /// Creates an empty database on the same server, runs `body` with its settings, then drops it.
    package static func withFreshDatabase<T: Sendable>(_ body: (DatabaseSettings) async throws -> T) async throws -> T {
        let base = try settings()
        let name = "test_" + RandomToken.base62(length: 12).lowercased()
        try await withClient(base) { client in
            try await client.query("CREATE DATABASE \(unescaped: name)")
        }
        var fresh = base
        fresh.database = name
        do {
            let result = try await body(fresh)
            try? await withClient(base) { client in
                try await client.query("DROP DATABASE \(unescaped: name) WITH (FORCE)")
            }
            return result
        } catch {
            try? await withClient(base) { client in
                try await client.query("DROP DATABASE \(unescaped: name) WITH (FORCE)")
            }
            throw error
        }
    }

    /// Creates an empty database, applies `migrations` to it in order and runs `body` with a running pool on it, then
    /// drops it: the setup of a test of one service's repositories on a schema of their own.
    package static func withMigratedDatabase<T: Sendable>(
        _ migrations: [MigrationRunner],
        logger: Logger,
        _ body: @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        try await withFreshDatabase { settings in
            try await withClient(settings) { client in
                for runner in migrations { try await runner.run(client: client, logger: logger) }
                return try await body(client)
            }
        }
    }

    /// Runs `body` with a running pool on `settings`.
    package static func withClient<T: Sendable>(
        _ settings: DatabaseSettings,
        _ body: @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let client = settings.makeClient(logger: Logger(label: "test-db"))
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    /// How many deadlocks PostgreSQL has broken in `settings`' database since it was created, once every other
    /// session of that database has ended: a session reports its statistics when it ends at the latest, and it
    /// leaves `pg_stat_activity` only after that, so the count is complete once the services have stopped (waited
    /// for up to a minute; a session still open then is reported as an error).
    package static func deadlocks(_ settings: DatabaseSettings) async throws -> Int64 {
        try await withClient(settings) { client in
            let deadline = ContinuousClock.now + .seconds(60)
            while true {
                let others = try await client.query(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                    """)
                var count: Int64 = 0
                for try await value in others.decode(Int64.self) { count = value }
                if count == 0 { break }
                guard ContinuousClock.now < deadline else {
                    throw SessionsStillOpen(count: count, database: settings.database)
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await client.query("SELECT pg_stat_clear_snapshot()")
            let rows = try await client.query(
                "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
            for try await count in rows.decode(Int64.self) { return count }
            return 0
        }
    }

    /// Runs `body` with a running pool on the test database.
    package static func withClient<T: Sendable>(_ body: @Sendable (PostgresClient) async throws -> T) async throws -> T
    {
        try await withClient(try settings(), body)
    }
}

extension DatabaseSettings {
    /// `postgres://user@host:port/database` for these settings.
    package var url: String {
        let credentials = password.map { "\(username):\($0)" } ?? username
        return "postgres://\(credentials)@\(host):\(port)/\(database)"
    }
}

/// Sessions of a database were still open when a test needed them all ended.
package struct SessionsStillOpen: Error, CustomStringConvertible {
    package var count: Int64
    package var database: String
    package var description: String { "\(count) sessions of \(database) were still open after a minute" }
}
