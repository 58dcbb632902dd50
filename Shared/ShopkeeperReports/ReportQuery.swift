import Logging
import PostgresNIO
import ShopkeeperDatabase

/// The days of a request that a summary holds (closed days) and the day worked out from the facts (today).
package struct ReportWindow: Sendable {
    /// The closed days of the range: from `from` through the day before today, or through `to` when it is earlier
    /// (none when `closedTo` is before `closedFrom`).
    package var closedFrom: String
    package var closedTo: String
    /// Today when the range includes it, else nothing.
    package var liveDays: [String]

    package init(_ request: ReportRequest, today: ReportDay) {
        closedFrom = request.from.description
        closedTo = min(request.to, ReportDay(ordinal: today.ordinal - 1)).description
        liveDays = request.from <= today && today <= request.to ? [today.description] : []
    }
}

/// Runs a report's statements and shapes their rows.
package enum ReportQuery {
    /// Runs `body` in a transaction set up for reports (``configure(_:logger:)``).
    package static func withConnection<Result: Sendable>(
        client: PostgresClient, logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await client.transaction(logger: logger) { connection in
            try await configure(connection, logger: logger)
            return try await body(connection)
        }
    }

    /// Sets up the current transaction for a report's statements:
    /// - `jit = off`: a report's statement joins small parts whose sizes the planner cannot know (an `unnest` of days,
    ///   a summary just built), and its estimates can run to millions of rows: past `jit_above_cost`, PostgreSQL then
    ///   spends seconds compiling a statement that runs in milliseconds (measured: 4 s of JIT for 35 ms of work);
    /// - `work_mem = 64MB`: a fine grouping over a year is tens of thousands of groups, which the default 4 MB hashes
    ///   and sorts on disk (measured: twice the time).
    package static func configure(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("SET LOCAL jit = off", logger: logger)
        try await connection.run("SET LOCAL work_mem = '64MB'", logger: logger)
    }

    /// ``table(report:request:columns:query:totalsBy:on:logger:)`` in a transaction of its own
    /// (``withConnection(client:logger:_:)``).
    package static func table(
        report: String, request: ReportRequest, columns: [(column: ReportColumn, shown: Bool)], query: PostgresQuery,
        totalsBy: [String] = [], client: PostgresClient, logger: Logger
    ) async throws -> ReportTable {
        try await withConnection(client: client, logger: logger) { connection in
            try await table(
                report: report, request: request, columns: columns, query: query, totalsBy: totalsBy, on: connection,
                logger: logger)
        }
    }

    /// Runs `query`, whose result columns are `columns` in order (dimensions as `text`, figures as `bigint`, either
    /// possibly null), and returns the table of the columns marked `shown`.
    package static func table(
        report: String, request: ReportRequest, columns: [(column: ReportColumn, shown: Bool)], query: PostgresQuery,
        totalsBy: [String] = [], on connection: PostgresConnection, logger: Logger
    ) async throws -> ReportTable {
        var rows: [[ReportValue]] = []
        let result = try await connection.checkedQuery(query, logger: logger)
        for try await row in result {
            let cells = row.makeRandomAccess()
            var values: [ReportValue] = []
            values.reserveCapacity(columns.count)
            for (index, (column, shown)) in columns.enumerated() where shown {
                switch column.role {
                case .dimension, .note: values.append(ReportValue(try cells[index].decode(String?.self)))
                case .sum, .other: values.append(ReportValue(try cells[index].decode(Int64?.self)))
                }
            }
            rows.append(values)
        }
        return ReportTable(
            report: report, request: request, columns: columns.filter(\.shown).map(\.column), rows: rows,
            totalsBy: totalsBy)
    }
}
