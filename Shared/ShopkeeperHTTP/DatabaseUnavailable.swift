import HTTPTypes
import PostgresNIO
import ShopkeeperDatabase

/// The database could not do the request's work now: a lock or statement timeout, a conflict still there after the
/// transaction's reruns (a deadlock, a serialization failure, what it read kept changing), a connection lost or
/// refused. Nothing was written (the transaction rolled back); the same
/// request can be sent again. Rendered as `503 database_unavailable` with `Retry-After`, never as a 500: the
/// caller did nothing wrong, and a client that retries 5xx later gets its answer.
package struct DatabaseUnavailable: ProblemError {
    package var status: HTTPResponse.Status { .serviceUnavailable }
    package var code: String { "database_unavailable" }
    package var detail: String {
        "The database is busy or unreachable; nothing was changed. Send the same request again shortly."
    }
    package var headers: HTTPFields { [.retryAfter: "1"] }

    /// The rendering of `error` when it is a transient database failure, else `nil`.
    package init?(_ error: any Error) {
        if error is DatabaseConnectionLost || error is TransactionRestart { return }
        guard let psql = error as? PSQLError else { return nil }
        switch psql.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed,
            .queryCancelled:
            return
        case .server:
            guard let state = psql.serverInfo?[.sqlState], Self.transientStates.contains(state) else { return nil }
        default:
            return nil
        }
    }

    /// SQLSTATEs that say "not now": lock timeout, statement timeout or cancel, deadlock and serialization
    /// failure (after the transaction's reruns), too many connections, shutting down, in recovery.
    static let transientStates: Set<String> = ["55P03", "57014", "40P01", "40001", "53300", "57P01", "57P03"]
}
