import Logging
import PostgresNIO

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

/// Runs a report's statement and shapes its rows.
package enum ReportQuery {
    /// Runs `query`, whose result columns are `columns` in order (dimensions as `text`, figures as `bigint`, either
    /// possibly null), and returns the table of the columns marked `shown`.
    package static func table(
        report: String, request: ReportRequest, columns: [(column: ReportColumn, shown: Bool)], query: PostgresQuery,
        totalsBy: [String] = [], client: PostgresClient, logger: Logger
    ) async throws -> ReportTable {
        var rows: [[ReportValue]] = []
        let result = try await client.query(query, logger: logger)
        for try await row in result {
            let cells = row.makeRandomAccess()
            var values: [ReportValue] = []
            values.reserveCapacity(columns.count)
            for (index, (column, shown)) in columns.enumerated() where shown {
                switch column.role {
                case .dimension: values.append(ReportValue(try cells[index].decode(String?.self)))
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
