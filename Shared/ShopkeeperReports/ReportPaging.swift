import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// Splits a long report into pages of whole days, so that no answer is an export of tens of thousands of rows: a year
/// of sales by day, product, store and storefront is 56,000 rows (13 MB of JSON) for a shop of a million purchases a
/// year.
///
/// A JSON report grouped by day covers the days from `from` whose rows fit in ``ReportRequest/limit`` (never fewer
/// than one day); its answer's `to` is the last day it covers and `next_from` the first day of the next page (null on
/// the last). CSV is an export: always the whole range.
package enum ReportPaging {
    /// `request` narrowed to its first page: `to` moved back to the last day whose rows, counted from `from`, stay
    /// within the limit; and the first day after it when that is before the range's end. The rows of each day are
    /// counted from the daily summary: the distinct values of the grouping's keys there (one scan of the range's
    /// summary rows, hashed; the report itself then adds up only the page's days).
    ///
    /// - Parameters:
    ///   - table: the daily summary (`schema.table`, with `app_id` and `day` columns and an index on them).
    ///   - keys: the summary's columns (or expressions of them: constants of the report, never input) that key the
    ///     report's rows besides the day, for the grouping asked: a day has as many rows as distinct keys.
    ///   - environment: the environment the report counts, for a summary kept per environment.
    package static func firstPage(
        of request: ReportRequest, summary table: String, keys: [String], environment: StoreEnvironment? = nil,
        appID: String, client: PostgresClient, logger: Logger
    ) async throws -> (request: ReportRequest, nextFrom: ReportDay?) {
        guard request.format == .json, request.groups(by: "day") else { return (request, nil) }
        let distinct = (["day"] + keys).joined(separator: ", ")
        let environmentFilter = environment == nil ? "" : " AND environment = $4::text"
        var binds = try PostgresBindings(appID, request.from.description, request.to.description)
        if let environment { binds.append(environment.rawValue) }
        // The rows each day will have: its distinct keys, hashed (`SELECT DISTINCT`) over the summary's rows.
        let rows = try await client.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT to_char(day, 'YYYY-MM-DD'), count(*) FROM (
                        SELECT DISTINCT \(distinct) FROM \(table)
                        WHERE app_id = $1::text AND day >= $2::text::date AND day <= $3::text::date\(environmentFilter)
                    ) d
                    GROUP BY day ORDER BY day
                    """,
                binds: binds),
            logger: logger)
        var counted = 0
        for try await (text, count) in rows.decode((String, Int).self) {
            guard let day = ReportDay(text) else { continue }
            // The first day with rows is always on the page, however many it has.
            if counted > 0, counted + count > request.limit {
                var page = request
                page.to = ReportDay(ordinal: day.ordinal - 1)
                return (page, day)
            }
            counted += count
        }
        return (request, nil)
    }
}
