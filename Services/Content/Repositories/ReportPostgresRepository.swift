import Logging
import PostgresNIO
import ShopkeeperReports

/// ``ReportRepository`` on PostgreSQL: the daily summary's downloads, re-downloads and bytes (``ReportRollups``),
/// and the distinct devices of each row and of the whole range, counted from the summary of each day's devices per
/// version (distinct counts do not add up across days or versions). Distinct pairs are taken with `SELECT DISTINCT`,
/// which hashes, not `count(DISTINCT (a, b))`, which sorts the pairs as records (five times slower here).
///
/// The two are computed once each (`MATERIALIZED`) and joined on keys a hash join can use (a dimension that is not
/// grouped by is null on both sides, so `coalesce` with a value no key has): an estimate of one row must not make the
/// planner recount the devices once per row.
struct ReportPostgresRepository: ReportRepository {
    let client: PostgresClient
    let logger: Logger

    func downloads(appID: String, request: ReportRequest) async throws -> ReportTable {
        try await ReportRollups.downloads.refresh(appID: appID, client: client, logger: logger)
        try await ReportRollups.devices.refresh(appID: appID, client: client, logger: logger)
        let (request, nextFrom) = try await ReportPaging.firstPage(
            of: request, summary: ReportRollups.downloads.table,
            keys: (request.groups(by: "product") || request.groups(by: "version") ? ["product_id"] : [])
                + (request.groups(by: "version") ? ["version"] : []),
            appID: appID, client: client, logger: logger)
        let (byDay, byVersion) = (request.groups(by: "day"), request.groups(by: "version"))
        let byProduct = byVersion || request.groups(by: "product")
        let (from, to): (String, String) = (request.from.description, request.to.description)
        let query = PostgresQuery(
            unsafeSQL: Self.sql, binds: try PostgresBindings(appID, from, to, byDay, byProduct, byVersion))
        var answer = try await ReportQuery.withConnection(client: client, logger: logger) { connection in
            try await table(
                request, query: query, byDay: byDay, byProduct: byProduct, byVersion: byVersion, appID: appID,
                on: connection)
        }
        answer.nextFrom = nextFrom
        return answer
    }

    private func table(
        _ request: ReportRequest, query: PostgresQuery, byDay: Bool, byProduct: Bool, byVersion: Bool, appID: String,
        on connection: PostgresConnection
    ) async throws -> ReportTable {
        let (from, to): (String, String) = (request.from.description, request.to.description)
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
            query: query, on: connection, logger: logger)
        let devices = try await connection.checkedQuery(
            """
            SELECT count(*) FROM (
                SELECT DISTINCT app_user_id, device_id FROM content.report_download_devices
                WHERE app_id = \(appID)::text AND day >= \(from)::text::date AND day <= \(to)::text::date
            ) d
            """,
            logger: logger)
        for try await count in devices.decode(Int64.self) {
            table.addTotal("devices", value: .integer(count))
        }
        return table
    }

    /// `$1` app, `$2`/`$3` the range, `$4`...`$6` grouping by day, product, version.
    static let sql = """
        WITH sums AS MATERIALIZED (
            SELECT CASE WHEN $4::boolean THEN day END AS day, CASE WHEN $5::boolean THEN product_id END AS product_id,
                   CASE WHEN $6::boolean THEN version END AS version, sum(downloads) AS downloads,
                   sum(redownloads) AS redownloads, sum(bytes_sent) AS bytes_sent
            FROM content.report_download_days
            WHERE app_id = $1::text AND day >= $2::text::date AND day <= $3::text::date
            GROUP BY 1, 2, 3
        ), devices AS MATERIALIZED (
            SELECT day, product_id, version, count(*) AS devices
            FROM (
                SELECT DISTINCT CASE WHEN $4::boolean THEN day END AS day,
                       CASE WHEN $5::boolean THEN product_id END AS product_id,
                       CASE WHEN $6::boolean THEN version END AS version, app_user_id, device_id
                FROM content.report_download_devices
                WHERE app_id = $1::text AND day >= $2::text::date AND day <= $3::text::date
            ) d
            GROUP BY 1, 2, 3
        )
        SELECT to_char(s.day, 'YYYY-MM-DD'), s.product_id, s.version, s.downloads::bigint, s.redownloads::bigint,
               coalesce(v.devices, 0)::bigint, s.bytes_sent::bigint
        FROM sums s
        LEFT JOIN devices v ON coalesce(v.day, '-infinity') = coalesce(s.day, '-infinity')
            AND coalesce(v.product_id, '') = coalesce(s.product_id, '') AND coalesce(v.version, '') = coalesce(s.version, '')
        ORDER BY s.day, s.product_id, s.version
        """
}
