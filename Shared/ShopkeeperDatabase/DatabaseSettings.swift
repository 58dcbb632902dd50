import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore

/// How to reach PostgreSQL, read from `DATABASE_URL` and `SHOPKEEPER_DB_POOL_SIZE`, how long any session may
/// wait (`SHOPKEEPER_DB_LOCK_TIMEOUT_MS`, `SHOPKEEPER_DB_STATEMENT_TIMEOUT_MS`,
/// `SHOPKEEPER_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS`), and whether a pooler sits in between (`SHOPKEEPER_DB_POOLER`,
/// `DATABASE_DIRECT_URL`).
///
/// The connection budget of a process is ``maximumConnections`` (its pool), plus one for entitlements' `LISTEN`
/// (``sessionSettings``): `docs/architecture.md`, "Connection budget".
package struct DatabaseSettings: Sendable {
    package var host: String
    package var port: Int
    package var username: String
    package var password: String?
    package var database: String
    /// Most connections the pool opens.
    package var maximumConnections: Int
    /// Every wait of every session is bounded, so that a process that died in the middle of a transaction (or a
    /// stuck one) cannot hold a customer's locks for more than seconds: PostgreSQL ends its session and frees them.
    /// Longest wait for a lock (`lock_timeout`), in milliseconds.
    package var lockTimeoutMilliseconds = 5_000
    /// Longest statement (`statement_timeout`), in milliseconds.
    package var statementTimeoutMilliseconds = 30_000
    /// Longest pause inside a transaction (`idle_in_transaction_session_timeout`), in milliseconds.
    package var idleInTransactionTimeoutMilliseconds = 10_000
    /// What sits between this process and PostgreSQL at `DATABASE_URL`.
    package var pooler: DatabasePooler = .none
    /// PostgreSQL itself when `DATABASE_URL` is a pooler (`DATABASE_DIRECT_URL`): for connections that need a
    /// session of their own.
    package var direct: DatabaseEndpoint?

    /// Reads `DATABASE_URL` (`postgres://user:password@host:port/database`), the pool size, the timeouts, the
    /// pooler and `DATABASE_DIRECT_URL`.
    package static func read(from environment: EnvironmentReader) throws(ConfigurationError) -> DatabaseSettings {
        let url = environment.string("DATABASE_URL", default: "postgres://postgres@127.0.0.1:5432/shopkeeper")
        var settings = try parse(url, variable: "DATABASE_URL")
        settings.maximumConnections = try environment.int("SHOPKEEPER_DB_POOL_SIZE", default: 10, in: 1...500)
        settings.pooler = try DatabasePooler.read(from: environment)
        if let direct = environment.raw("DATABASE_DIRECT_URL") {
            settings.direct = try parse(direct, variable: "DATABASE_DIRECT_URL").endpoint
        }
        settings.lockTimeoutMilliseconds = try environment.int(
            "SHOPKEEPER_DB_LOCK_TIMEOUT_MS", default: 5_000, in: 100...600_000)
        settings.statementTimeoutMilliseconds = try environment.int(
            "SHOPKEEPER_DB_STATEMENT_TIMEOUT_MS", default: 30_000, in: 100...3_600_000)
        settings.idleInTransactionTimeoutMilliseconds = try environment.int(
            "SHOPKEEPER_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS", default: 10_000, in: 100...3_600_000)
        return settings
    }

    /// Parses a `postgres://` or `postgresql://` URL.
    package static func parse(_ text: String, variable: String) throws(ConfigurationError) -> DatabaseSettings {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme, scheme == "postgres" || scheme == "postgresql",
            let host = components.host, !host.isEmpty
        else {
            throw ConfigurationError(
                variable: variable,
                reason: "must look like postgres://user:password@host:5432/database"
            )
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else {
            throw ConfigurationError(variable: variable, reason: "must name a database after the host")
        }
        return DatabaseSettings(
            host: host,
            port: components.port ?? 5432,
            username: components.user ?? "postgres",
            password: components.password,
            database: database,
            maximumConnections: 10
        )
    }

    /// Where `DATABASE_URL` points.
    package var endpoint: DatabaseEndpoint {
        get { DatabaseEndpoint(host: host, port: port, username: username, password: password, database: database) }
        set {
            (host, port, username, password, database) = (
                newValue.host, newValue.port, newValue.username, newValue.password, newValue.database
            )
        }
    }

    /// A one-connection pool's settings for what needs a session of its own (entitlements' `LISTEN`): PostgreSQL at
    /// `DATABASE_DIRECT_URL` when set, else `DATABASE_URL` when no transaction pooler is in between; `nil` when
    /// neither can give a session (a transaction pooler and no direct URL).
    package var sessionSettings: DatabaseSettings? {
        var settings = self
        if let direct {
            settings.endpoint = direct
        } else if pooler == .transaction {
            return nil
        }
        settings.pooler = .none
        settings.direct = nil
        settings.maximumConnections = 1
        return settings
    }

    /// The pool configuration. Through a transaction pooler no startup parameters are sent: PgBouncer 1.18 refuses
    /// those it does not know, and a session's settings would not follow the statements anyway (the pooler's own
    /// server connections carry the timeouts: ``DatabasePooler/transaction``).
    package var clientConfiguration: PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host,
            port: port,
            username: username,
            password: password,
            database: database,
            tls: .disable
        )
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// The configuration of a connection made outside the pool (the gateway's stored customer reads), with the same
    /// session settings.
    package var connectionConfiguration: PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// Every session's timeouts; none through a transaction pooler (see ``clientConfiguration``).
    private var startupParameters: [(String, String)] {
        guard pooler == .none else { return [] }
        return [
            ("lock_timeout", "\(lockTimeoutMilliseconds)ms"),
            ("statement_timeout", "\(statementTimeoutMilliseconds)ms"),
            ("idle_in_transaction_session_timeout", "\(idleInTransactionTimeoutMilliseconds)ms"),
        ]
    }

    /// A pool; it must be run (as a lifecycle service) before use.
    package func makeClient(logger: Logger) -> PostgresClient {
        PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
    }
}
