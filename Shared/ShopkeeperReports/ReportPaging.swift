import Logging
import PostgresNIO
import ShopkeeperDatabase

/// Splits a long report into pages of whole days, so that no answer is an export of tens of thousands of rows: a year
/// of sales by day, product, store and storefront is 56,000 rows (13 MB of JSON) for a shop of a million purchases a
/// year.
///
/// A JSON report grouped by day covers the days from `from` for which its daily summary holds about
/// ``ReportRequest/limit`` rows (never fewer than one day); its answer's `to` is the last day it covers and
/// `next_from` the first day of the next page (null on the last). A report grouped by day adds up summary rows that
/// share a day, so it never has more rows than the summary has for its days. CSV is an export: always the whole range.
package enum ReportPaging {
    /// `request` narrowed to its first page: `to` moved back to the last day whose summary rows, counted from `from`,
    /// stay within the limit; and the first day after it when that is before the range's end.
    ///
    /// - Parameter table: the daily summary (`schema.table`, with `app_id` and `day` columns and an index on them).
    package static func firstPage(
        of request: ReportRequest, summary table: String, appID: String, client: PostgresClient, logger: Logger
    ) async throws -> (request: ReportRequest, nextFrom: ReportDay?) {
        guard request.format == .json, request.groups(by: "day") else { return (request, nil) }
        let rows = try await client.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT to_char(day, 'YYYY-MM-DD'), count(*) FROM \(table)
                    WHERE app_id = $1::text AND day >= $2::text::date AND day <= $3::text::date
                    GROUP BY day ORDER BY day
                    """,
                binds: try PostgresBindings(appID, request.from.description, request.to.description)),
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
