import Logging
import PostgresNIO
import ShopkeeperReports

/// ``ReportRepository`` on PostgreSQL: the daily summary's downloads, re-downloads and bytes (``ReportRollups``),
/// and the distinct devices of each row and of the whole range, counted from the log (distinct counts do not add up
/// across days or versions; an index holds what they need).
struct ReportPostgresRepository: ReportRepository {
    let client: PostgresClient
    let logger: Logger

    func downloads(appID: String, request: ReportRequest) async throws -> ReportTable {
        let today = try await ReportRollups.downloads.refresh(appID: appID, client: client, logger: logger)
        let window = ReportWindow(request, today: today)
        let (byDay, byVersion) = (request.groups(by: "day"), request.groups(by: "version"))
        let byProduct = byVersion || request.groups(by: "product")
        let (from, to): (String, String) = (request.from.description, request.to.description)
        let query = PostgresQuery(
            unsafeSQL: Self.sql,
            binds: try PostgresBindings(
                appID, window.liveDays, window.closedFrom, window.closedTo, byDay, byProduct, byVersion, from, to))
        var table = try await ReportQuery.table(
            report: "content", request: request,
            columns: [
                (ReportColumn("day", .dimension), byDay),
                (ReportColumn("product_id", .dimension), byProduct),
                (ReportColumn("version", .dimension), byVersion),
                (ReportColumn("downloads", .sum), true),
                (ReportColumn("redownloads", .sum), true),
                (ReportColumn("devices", .other), true),
                (ReportColumn("bytes_sent", .sum), true),
            ],
            query: query, client: client, logger: logger)
        let devices = try await client.query(
            """
            SELECT count(DISTINCT (app_user_id, device_id)) FROM content.downloads
            WHERE app_id = \(appID)::text AND started_at >= content.utc_start(\(from)::text::date)
              AND started_at < content.utc_start(\(to)::text::date + 1)
              AND completed AND range_end = file_size - 1
            """,
            logger: logger)
        for try await count in devices.decode(Int64.self) {
            table.addTotal("devices", value: .integer(count))
        }
        return table
    }

    /// `$1` app, `$2` today when in the range, `$3`/`$4` the closed days, `$5`...`$7` grouping by day, product,
    /// version, `$8`/`$9` the range.
    static let sql = """
        WITH r AS (
            SELECT day, product_id, version, downloads, redownloads, bytes_sent
            FROM content.report_download_days
            WHERE app_id = $1::text AND day >= $3::text::date AND day <= $4::text::date
            UNION ALL
            SELECT day, product_id, version, downloads, redownloads, bytes_sent
            FROM (\(ReportRollups.downloads.select)) AS live (
                app_id, day, product_id, version, downloads, redownloads, bytes_sent)
        ), sums AS (
            SELECT CASE WHEN $5::boolean THEN day END AS day, CASE WHEN $6::boolean THEN product_id END AS product_id,
                   CASE WHEN $7::boolean THEN version END AS version, sum(downloads) AS downloads,
                   sum(redownloads) AS redownloads, sum(bytes_sent) AS bytes_sent
            FROM r GROUP BY 1, 2, 3
        ), devices AS (
            SELECT CASE WHEN $5::boolean THEN content.utc_day(started_at) END AS day,
                   CASE WHEN $6::boolean THEN product_id END AS product_id,
                   CASE WHEN $7::boolean THEN version END AS version,
                   count(DISTINCT (app_user_id, device_id)) AS devices
            FROM content.downloads
            WHERE app_id = $1::text AND started_at >= content.utc_start($8::text::date)
              AND started_at < content.utc_start($9::text::date + 1) AND completed AND range_end = file_size - 1
            GROUP BY 1, 2, 3
        )
        SELECT to_char(s.day, 'YYYY-MM-DD'), s.product_id, s.version, s.downloads::bigint, s.redownloads::bigint,
               coalesce(v.devices, 0)::bigint, s.bytes_sent::bigint
        FROM sums s
        LEFT JOIN devices v ON v.day IS NOT DISTINCT FROM s.day AND v.product_id IS NOT DISTINCT FROM s.product_id
            AND v.version IS NOT DISTINCT FROM s.version
        ORDER BY s.day, s.product_id, s.version
        """
}
