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
        try await ReportRollups.downloads.refresh(appID: appID, client: client, logger: logger)
        let (byDay, byVersion) = (request.groups(by: "day"), request.groups(by: "version"))
        let byProduct = byVersion || request.groups(by: "product")
        let (from, to): (String, String) = (request.from.description, request.to.description)
        let query = PostgresQuery(
            unsafeSQL: Self.sql, binds: try PostgresBindings(appID, from, to, byDay, byProduct, byVersion))
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

    /// `$1` app, `$2`/`$3` the range, `$4`...`$6` grouping by day, product, version.
    static let sql = """
        WITH sums AS (
            SELECT CASE WHEN $4::boolean THEN day END AS day, CASE WHEN $5::boolean THEN product_id END AS product_id,
                   CASE WHEN $6::boolean THEN version END AS version, sum(downloads) AS downloads,
                   sum(redownloads) AS redownloads, sum(bytes_sent) AS bytes_sent
            FROM content.report_download_days
            WHERE app_id = $1::text AND day >= $2::text::date AND day <= $3::text::date
            GROUP BY 1, 2, 3
        ), devices AS (
            SELECT CASE WHEN $4::boolean THEN content.utc_day(started_at) END AS day,
                   CASE WHEN $5::boolean THEN product_id END AS product_id,
                   CASE WHEN $6::boolean THEN version END AS version,
                   count(DISTINCT (app_user_id, device_id)) AS devices
            FROM content.downloads
            WHERE app_id = $1::text AND started_at >= content.utc_start($2::text::date)
              AND started_at < content.utc_start($3::text::date + 1) AND completed AND range_end = file_size - 1
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
