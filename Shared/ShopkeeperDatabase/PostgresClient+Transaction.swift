import Logging
import PostgresNIO

extension PostgresClient {
    /// Runs `body` in one transaction and returns its result.
    ///
    /// What `body` throws reaches the caller as itself. When PostgreSQL aborts the transaction to break a deadlock or
    /// a serialization conflict, or `body` throws ``TransactionRestart``, the whole transaction runs again, up to
    /// `attempts` times, after a pause of a few milliseconds that grows with each attempt (so that the transactions
    /// that met do not meet again in step): `body` must do everything through `connection` so a rerun starts clean.
    ///
    /// A connection that closes meanwhile (the server dropped it, or the pool closed it at shutdown) fails the
    /// transaction with ``DatabaseConnectionLost`` and is not rolled back by hand: the server rolls back what a closed
    /// session left open. (PostgresNIO's own `withTransaction` sends `ROLLBACK` there, and a statement written to a
    /// closed connection is never answered: the caller, and its place in the pool, would wait forever.)
    package func transaction<Result: Sendable>(
        logger: Logger,
        attempts: Int = 4,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await withConnection(isolation: isolation) { connection in
                    try await connection.transaction(logger: logger, isolation: isolation, body)
                }
            } catch {
                if attempt < attempts, Self.isRetryable(error) {
                    logger.debug(
                        "transaction aborted by a conflict; running it again",
                        metadata: ["attempt": "\(attempt + 1)", "cause": "\(error)"])
                    try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempt))))
                    attempt += 1
                    continue
                }
                throw error
            }
        }
    }

    /// Deadlock (40P01) or serialization failure (40001): PostgreSQL asks the client to run the transaction again.
    private static func isRetryable(_ error: any Error) -> Bool {
        if error is TransactionRestart { return true }
        guard let psql = error as? PSQLError, let state = psql.serverInfo?[.sqlState] else { return false }
        return state == "40P01" || state == "40001"
    }
}

extension PostgresConnection {
    /// `BEGIN`, `body`, `COMMIT` on this connection; `ROLLBACK` when `body` throws and the connection is still
    /// open. Throws what `body` threw (or the failed `BEGIN` or `COMMIT`). No reruns: see
    /// ``PostgresClient/transaction(logger:attempts:isolation:_:)`` for those.
    package func transaction<Result: Sendable>(
        logger: Logger,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await run("BEGIN", logger: logger)
        let value: Result
        do {
            value = try await body(self)
        } catch {
            if !isClosed {
                do {
                    try await run("ROLLBACK", logger: logger)
                } catch {
                    logger.debug("rollback failed", metadata: ["error": "\(error)"])
                }
            }
            throw error
        }
        try await run("COMMIT", logger: logger)
        return value
    }

    /// Throws ``DatabaseConnectionLost`` when the connection is closed: a statement written to a closed connection
    /// is never answered (PostgresNIO 1.33 drops the write and leaves the statement's promise pending).
    package func requireOpen() throws(DatabaseConnectionLost) {
        if isClosed { throw DatabaseConnectionLost() }
    }
}

/// Thrown inside ``PostgresClient/transaction(logger:attempts:_:)`` to roll the transaction back and run it again
/// from the start: what it read first has changed, and going on would take locks out of their order.
package struct TransactionRestart: Error, CustomStringConvertible {
    package var reason: String
    package init(reason: String) { self.reason = reason }
    package var description: String { "transaction restarted: \(reason)" }
}

/// The connection a statement was to run on is closed (the server dropped it, or the pool closed it at shutdown):
/// the statement did not run, and the server rolls back a transaction the connection left open.
package struct DatabaseConnectionLost: Error, CustomStringConvertible {
    package init() {}
    package var description: String { "the database connection was closed" }
}
