import Logging
import PostgresNIO
import ShopkeeperReports

/// ``ReportRepository`` on PostgreSQL: each report brings its daily summary up to date (``ReportRollups``), then adds
/// up the summary's rows of the range's closed days and today's rows worked out from the facts.
///
/// The grouping is chosen with boolean parameters (`CASE WHEN $n THEN column END` in the `GROUP BY`), so every request
/// runs the same statement text.
struct ReportPostgresRepository: ReportRepository {
    let client: PostgresClient
    let logger: Logger

    func sales(appID: String, request: ReportRequest) async throws -> ReportTable {
        let today = try await ReportRollups.sales.refresh(appID: appID, client: client, logger: logger)
        let window = ReportWindow(request, today: today)
        let environment: String = request.environment?.rawValue ?? "production"
        let byProduct = request.groups(by: "product")
        let query = PostgresQuery(
            unsafeSQL: Self.salesSQL,
            binds: try PostgresBindings(
                appID, window.liveDays, window.closedFrom, window.closedTo, environment, request.groups(by: "day"),
                byProduct, request.groups(by: "store"), request.groups(by: "storefront")))
        return try await ReportQuery.table(
            report: "sales", request: request,
            columns: [
                (ReportColumn("day", .dimension), request.groups(by: "day")),
                (ReportColumn("product_id", .dimension), byProduct),
                (ReportColumn("store_product_id", .dimension), byProduct),
                (ReportColumn("store", .dimension), request.groups(by: "store")),
                (ReportColumn("storefront", .dimension), request.groups(by: "storefront")),
                (ReportColumn("currency", .dimension), true),
                (ReportColumn("purchases", .sum), true),
                (ReportColumn("renewals", .sum), true),
                (ReportColumn("units", .sum), true),
                (ReportColumn("revenue_milliunits", .sum), true),
                (ReportColumn("refunds", .sum), true),
                (ReportColumn("refunded_milliunits", .sum), true),
            ],
            query: query, totalsBy: ["currency"], client: client, logger: logger)
    }

    func usage(appID: String, request: ReportRequest) async throws -> ReportTable {
        let today = try await ReportRollups.usage.refresh(appID: appID, client: client, logger: logger)
        let window = ReportWindow(request, today: today)
        let environment: String = request.environment?.rawValue ?? "production"
        let byProduct = request.groups(by: "product")
        let query = PostgresQuery(
            unsafeSQL: Self.usageSQL,
            binds: try PostgresBindings(
                appID, window.liveDays, window.closedFrom, window.closedTo, environment, request.groups(by: "day"),
                request.groups(by: "app_version"), byProduct))
        return try await ReportQuery.table(
            report: "usage", request: request,
            columns: [
                (ReportColumn("day", .dimension), request.groups(by: "day")),
                (ReportColumn("app_version", .dimension), request.groups(by: "app_version")),
                (ReportColumn("product_id", .dimension), byProduct),
                (ReportColumn("store_product_id", .dimension), byProduct),
                (ReportColumn("purchases", .sum), true),
                (ReportColumn("renewals", .sum), true),
                (ReportColumn("units", .sum), true),
            ],
            query: query, client: client, logger: logger)
    }

    func consumables(appID: String, request: ReportRequest) async throws -> ReportTable {
        let today = try await ReportRollups.consumables.refresh(appID: appID, client: client, logger: logger)
        let window = ReportWindow(request, today: today)
        let query = PostgresQuery(
            unsafeSQL: Self.consumablesSQL,
            binds: try PostgresBindings(
                appID, window.liveDays, window.closedFrom, window.closedTo, request.groups(by: "day"),
                request.groups(by: "product")))
        return try await ReportQuery.table(
            report: "consumables", request: request,
            columns: [
                (ReportColumn("day", .dimension), request.groups(by: "day")),
                (ReportColumn("product_id", .dimension), request.groups(by: "product")),
                (ReportColumn("bought", .sum), true),
                (ReportColumn("spent", .sum), true),
                (ReportColumn("refunded", .sum), true),
            ],
            query: query, client: client, logger: logger)
    }

    /// `$1` app, `$2` today when in the range, `$3`/`$4` the closed days, `$5` environment, `$6`...`$9` grouping by
    /// day, product, store, storefront.
    static let salesSQL = """
        WITH r AS (
            SELECT day, environment, store, product_id, store_product_id, storefront, currency, purchases, renewals,
                   units, revenue_milliunits, refunds, refunded_milliunits
            FROM entitlements.report_sales_days
            WHERE app_id = $1::text AND day >= $3::text::date AND day <= $4::text::date
            UNION ALL
            SELECT day, environment, store, product_id, store_product_id, storefront, currency, purchases, renewals,
                   units, revenue_milliunits, refunds, refunded_milliunits
            FROM (\(ReportRollups.sales.select)) AS live (
                app_id, day, environment, store, product_id, store_product_id, storefront, currency, purchases,
                renewals, units, revenue_milliunits, refunds, refunded_milliunits)
        )
        SELECT CASE WHEN $6::boolean THEN to_char(day, 'YYYY-MM-DD') END,
               CASE WHEN $7::boolean THEN product_id END,
               CASE WHEN $7::boolean AND product_id IS NULL THEN store_product_id END,
               CASE WHEN $8::boolean THEN store END,
               CASE WHEN $9::boolean THEN storefront END,
               currency,
               sum(purchases)::bigint, sum(renewals)::bigint, sum(units)::bigint,
               CASE WHEN currency IS NOT NULL THEN sum(revenue_milliunits)::bigint END,
               sum(refunds)::bigint,
               CASE WHEN currency IS NOT NULL THEN sum(refunded_milliunits)::bigint END
        FROM r WHERE environment = $5::text
        GROUP BY 1, 2, 3, 4, 5, 6
        ORDER BY 1, 2, 3, 4, 5, 6
        """

    /// `$1` app, `$2` today when in the range, `$3`/`$4` the closed days, `$5` environment, `$6`...`$8` grouping by
    /// day, app version, product.
    static let usageSQL = """
        WITH r AS (
            SELECT day, environment, product_id, store_product_id, app_version, purchases, renewals, units
            FROM entitlements.report_usage_days
            WHERE app_id = $1::text AND day >= $3::text::date AND day <= $4::text::date
            UNION ALL
            SELECT day, environment, product_id, store_product_id, app_version, purchases, renewals, units
            FROM (\(ReportRollups.usage.select)) AS live (
                app_id, day, environment, product_id, store_product_id, app_version, purchases, renewals, units)
        )
        SELECT * FROM (
            SELECT CASE WHEN $6::boolean THEN to_char(day, 'YYYY-MM-DD') END AS day,
                   CASE WHEN $7::boolean THEN app_version END AS app_version,
                   CASE WHEN $8::boolean THEN product_id END AS product_id,
                   CASE WHEN $8::boolean AND product_id IS NULL THEN store_product_id END AS store_product_id,
                   sum(purchases)::bigint AS purchases, sum(renewals)::bigint AS renewals,
                   sum(units)::bigint AS units
            FROM r WHERE environment = $5::text
            GROUP BY 1, 2, 3, 4
        ) g
        ORDER BY day, entitlements.version_key(app_version), app_version, product_id, store_product_id
        """

    /// `$1` app, `$2` today when in the range, `$3`/`$4` the closed days, `$5`/`$6` grouping by day, product.
    static let consumablesSQL = """
        WITH r AS (
            SELECT day, product_id, bought, spent, refunded
            FROM entitlements.report_consumable_days
            WHERE app_id = $1::text AND day >= $3::text::date AND day <= $4::text::date
            UNION ALL
            SELECT day, product_id, bought, spent, refunded
            FROM (\(ReportRollups.consumables.select)) AS live (app_id, day, product_id, bought, spent, refunded)
        )
        SELECT CASE WHEN $5::boolean THEN to_char(day, 'YYYY-MM-DD') END,
               CASE WHEN $6::boolean THEN product_id END,
               sum(bought)::bigint, sum(spent)::bigint, sum(refunded)::bigint
        FROM r
        GROUP BY 1, 2
        ORDER BY 1, 2
        """
}
