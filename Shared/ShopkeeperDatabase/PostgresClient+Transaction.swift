import Logging
import PostgresNIO

extension PostgresClient {
    /// Runs `body` in one transaction and returns its result.
    ///
    /// What `body` throws reaches the caller as itself (PostgresNIO wraps it in `PostgresTransactionError`). When
    /// PostgreSQL aborts the transaction to break a deadlock or a serialization conflict, or `body` throws
    /// ``TransactionRestart``, the whole transaction runs again, up to `attempts` times, after a pause of a few
    /// milliseconds that grows with each attempt (so that the transactions that met do not meet again in step):
    /// `body` must do everything through `connection` so a rerun starts clean.
    package func transaction<Result: Sendable>(
        logger: Logger,
        attempts: Int = 4,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await withTransaction(logger: logger) { connection in try await body(connection) }
            } catch let error as PostgresTransactionError {
                let cause = error.closureError ?? error.commitError ?? error.beginError ?? error
                if attempt < attempts, Self.isRetryable(cause) {
                    logger.debug(
                        "transaction aborted by a conflict; running it again",
                        metadata: ["attempt": "\(attempt + 1)", "cause": "\(cause)"])
                    try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempt))))
                    attempt += 1
                    continue
                }
                throw cause
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

/// Thrown inside ``PostgresClient/transaction(logger:attempts:_:)`` to roll the transaction back and run it again
/// from the start: what it read first has changed, and going on would take locks out of their order.
package struct TransactionRestart: Error, CustomStringConvertible {
    package var reason: String
    package init(reason: String) { self.reason = reason }
    package var description: String { "transaction restarted: \(reason)" }
}
