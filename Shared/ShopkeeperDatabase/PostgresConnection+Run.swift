import Logging
import PostgresNIO

extension PostgresConnection {
    /// Runs a statement and reads its result to the end, so that an error PostgreSQL reports late (a deadlock found
    /// while waiting for a lock, a constraint checked at the end) is thrown here rather than lost with the unread
    /// rows, leaving the transaction silently aborted. Throws ``DatabaseConnectionLost`` on a closed connection.
    package func run(_ query: PostgresQuery, logger: Logger) async throws {
        let rows = try await checkedQuery(query, logger: logger)
        for try await _ in rows {}
    }

    /// `query(_:logger:)` that throws ``DatabaseConnectionLost`` instead of writing to a closed connection (which
    /// would never answer). Use it for every statement on a connection held across awaits.
    @discardableResult
    package func checkedQuery(
        _ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> PostgresRowSequence {
        try requireOpen()
        return try await self.query(query, logger: logger, file: file, line: line)
    }
}

extension PostgresClient {
    /// Runs a statement on a pooled connection and reads its result to the end (see `PostgresConnection.run`).
    package func run(_ query: PostgresQuery, logger: Logger) async throws {
        let rows = try await self.query(query, logger: logger)
        for try await _ in rows {}
    }
}
