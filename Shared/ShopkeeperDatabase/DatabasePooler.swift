import ShopkeeperCore
import Synchronization

/// What sits between a process and PostgreSQL (`SHOPKEEPER_DB_POOLER`), and so what a connection may rely on.
///
/// Through a pooler in transaction mode (PgBouncer's `pool_mode = transaction`; Debian bookworm's is 1.18) a client
/// connection is lent a server session for one transaction, or for one statement outside a transaction, and the next
/// one may run on another session. Whatever lives in a session beyond a transaction is then lost, or lent to someone
/// else: named prepared statements (PgBouncer tracks them only from 1.21), session `SET`, session advisory locks,
/// `LISTEN`. Shopkeeper's statements avoid the last three in every mode (`SET LOCAL`, transaction-scoped advisory
/// locks, `LISTEN` on a connection of its own: ``DatabaseSettings/sessionSettings``); only prepared statements
/// differ, because preparing a hot statement once per connection saves planning it on every execution.
package enum DatabasePooler: String, Sendable, CaseIterable {
    /// Straight to PostgreSQL (or through a pooler in session mode): every connection is one session. Hot statements
    /// are named prepared statements.
    case none
    /// Through a pooler in transaction mode: every statement is sent as PostgreSQL's unnamed statement (parsed,
    /// bound and run in one exchange), and no startup parameters are sent (PgBouncer 1.18 refuses those it does not
    /// know; the pooler's server connections carry the timeouts: `connect_query` in `deploy/compose/pgbouncer/pgbouncer.ini`).
    case transaction

    /// Reads `SHOPKEEPER_DB_POOLER` (`none`, the default, or `transaction`).
    package static func read(from environment: EnvironmentReader) throws(ConfigurationError) -> DatabasePooler {
        try environment.choice("SHOPKEEPER_DB_POOLER", default: DatabasePooler.none)
    }

    /// The mode of every statement this process runs: ``none`` until ``bootstrap(_:)``.
    ///
    /// Process-wide, like `LoggingSystem.bootstrap`: the path to PostgreSQL is the process's, and a statement prepared
    /// from any task (a request, a background service, a task a channel handler started) must follow it. Tests that
    /// run services in their own process set it through the environment; in-process harnesses leave it ``none``.
    package static var process: DatabasePooler {
        processMode.load(ordering: .relaxed) == 1 ? .transaction : .none
    }

    /// Sets ``process``; called once, by `ServiceMain`, before the application is built.
    package static func bootstrap(_ pooler: DatabasePooler) {
        processMode.store(pooler == .transaction ? 1 : 0, ordering: .relaxed)
    }
}

private let processMode = Atomic<UInt8>(0)
