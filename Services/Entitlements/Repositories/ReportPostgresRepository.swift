import Logging
import PostgresNIO
import ShopkeeperReports

/// ``ReportRepository`` on PostgreSQL: each report brings its daily summary up to date (``ReportRollups``), then adds
/// up the summary's rows of the range.
///
/// The grouping is chosen with boolean parameters (`CASE WHEN $n THEN column END` in the `GROUP BY`), so every request
/// runs the same statement text.
struct ReportPostgresRepository: ReportRepository {
    let client: PostgresClient
    let logger: Logger

    func sales(appID: String, request: ReportRequest) async throws -> ReportTable {
        try await ReportRollups.sales.refresh(appID: appID, client: client, logger: logger)
        let (request, nextFrom) = try await ReportPaging.firstPage(
            of: request, summary: ReportRollups.sales.table,
            keys: ["currency"] + Self.productKeys(request) + (request.groups(by: "store") ? ["store"] : [])
                + (request.groups(by: "storefront") ? ["storefront"] : []),
            environment: request.environment ?? .production, appID: appID, client: client, logger: logger)
        let environment: String = request.environment?.rawValue ?? "production"
        let byProduct = request.groups(by: "product")
        let query = PostgresQuery(
            unsafeSQL: Self.salesSQL,
            binds: try PostgresBindings(
                appID, request.from.description, request.to.description, environment, request.groups(by: "day"),
                byProduct, request.groups(by: "store"), request.groups(by: "storefront")))
        var table = try await ReportQuery.table(
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
                // The part of the two amounts above estimated from synced prices (Google Play), not told by the store.
                (ReportColumn("estimated_revenue_milliunits", .sum), true),
                (ReportColumn("estimated_refunded_milliunits", .sum), true),
            ],
            query: query, totalsBy: ["currency"], client: client, logger: logger)
        table.nextFrom = nextFrom
        return table
    }

    func usage(appID: String, request: ReportRequest) async throws -> ReportTable {
        try await ReportRollups.usage.refresh(appID: appID, client: client, logger: logger)
        let (request, nextFrom) = try await ReportPaging.firstPage(
            of: request, summary: ReportRollups.usage.table,
            keys: (request.groups(by: "app_version") ? ["app_version"] : []) + Self.productKeys(request),
            environment: request.environment ?? .production, appID: appID, client: client, logger: logger)
        let environment: String = request.environment?.rawValue ?? "production"
        let byProduct = request.groups(by: "product")
        let query = PostgresQuery(
            unsafeSQL: Self.usageSQL,
            binds: try PostgresBindings(
                appID, request.from.description, request.to.description, environment, request.groups(by: "day"),
                request.groups(by: "app_version"), byProduct))
        var table = try await ReportQuery.table(
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
        table.nextFrom = nextFrom
        return table
    }

    func consumables(appID: String, request: ReportRequest) async throws -> ReportTable {
        try await ReportRollups.consumables.refresh(appID: appID, client: client, logger: logger)
        let (request, nextFrom) = try await ReportPaging.firstPage(
            of: request, summary: ReportRollups.consumables.table,
            keys: request.groups(by: "product") ? ["product_id"] : [], appID: appID, client: client, logger: logger)
        let query = PostgresQuery(
            unsafeSQL: Self.consumablesSQL,
            binds: try PostgresBindings(
                appID, request.from.description, request.to.description, request.groups(by: "day"),
                request.groups(by: "product")))
        var table = try await ReportQuery.table(
            report: "consumables", request: request,
            columns: [
                (ReportColumn("day", .dimension), request.groups(by: "day")),
                (ReportColumn("product_id", .dimension), request.groups(by: "product")),
                (ReportColumn("bought", .sum), true),
                (ReportColumn("spent", .sum), true),
                (ReportColumn("refunded", .sum), true),
            ],
            query: query, client: client, logger: logger)
        table.nextFrom = nextFrom
        return table
    }

    /// The summary's columns that key a row by product: the catalog's product, else the store's.
    static func productKeys(_ request: ReportRequest) -> [String] {
        request.groups(by: "product") ? ["product_id", "CASE WHEN product_id IS NULL THEN store_product_id END"] : []
    }

    /// `$1` app, `$2`/`$3` the range, `$4` environment, `$5`...`$8` grouping by day, product, store, storefront.
    static let salesSQL = """
        SELECT to_char(g.day, 'YYYY-MM-DD'), g.product_id, g.store_product_id, g.store, g.storefront, g.currency,
               g.purchases, g.renewals, g.units, CASE WHEN g.currency IS NOT NULL THEN g.revenue END, g.refunds,
               CASE WHEN g.currency IS NOT NULL THEN g.refunded END,
               CASE WHEN g.currency IS NOT NULL THEN g.estimated_revenue END,
               CASE WHEN g.currency IS NOT NULL THEN g.estimated_refunded END
        FROM (
            SELECT CASE WHEN $5::boolean THEN day END AS day, CASE WHEN $6::boolean THEN product_id END AS product_id,
                   CASE WHEN $6::boolean AND product_id IS NULL THEN store_product_id END AS store_product_id,
                   CASE WHEN $7::boolean THEN store END AS store, CASE WHEN $8::boolean THEN storefront END AS storefront,
                   currency, sum(purchases)::bigint AS purchases, sum(renewals)::bigint AS renewals,
                   sum(units)::bigint AS units, sum(revenue_milliunits)::bigint AS revenue,
                   sum(refunds)::bigint AS refunds, sum(refunded_milliunits)::bigint AS refunded,
                   sum(estimated_revenue_milliunits)::bigint AS estimated_revenue,
                   sum(estimated_refunded_milliunits)::bigint AS estimated_refunded
            FROM entitlements.report_sales_days
            WHERE app_id = $1::text AND environment = $4::text AND day >= $2::text::date AND day <= $3::text::date
            GROUP BY 1, 2, 3, 4, 5, 6
        ) g
        ORDER BY g.day, g.product_id, g.store_product_id, g.store, g.storefront, g.currency
        """

    /// `$1` app, `$2`/`$3` the range, `$4` environment, `$5`...`$7` grouping by day, app version, product.
    static let usageSQL = """
        SELECT to_char(g.day, 'YYYY-MM-DD'), g.app_version, g.product_id, g.store_product_id, g.purchases, g.renewals,
               g.units
        FROM (
            SELECT CASE WHEN $5::boolean THEN day END AS day, CASE WHEN $6::boolean THEN app_version END AS app_version,
                   CASE WHEN $7::boolean THEN product_id END AS product_id,
                   CASE WHEN $7::boolean AND product_id IS NULL THEN store_product_id END AS store_product_id,
                   sum(purchases)::bigint AS purchases, sum(renewals)::bigint AS renewals, sum(units)::bigint AS units
            FROM entitlements.report_usage_days
            WHERE app_id = $1::text AND environment = $4::text AND day >= $2::text::date AND day <= $3::text::date
            GROUP BY 1, 2, 3, 4
        ) g
        ORDER BY g.day, entitlements.version_key(g.app_version), g.app_version, g.product_id, g.store_product_id
        """

    /// `$1` app, `$2`/`$3` the range, `$4`/`$5` grouping by day, product.
    static let consumablesSQL = """
        SELECT to_char(g.day, 'YYYY-MM-DD'), g.product_id, g.bought, g.spent, g.refunded
        FROM (
            SELECT CASE WHEN $4::boolean THEN day END AS day, CASE WHEN $5::boolean THEN product_id END AS product_id,
                   sum(bought)::bigint AS bought, sum(spent)::bigint AS spent, sum(refunded)::bigint AS refunded
            FROM entitlements.report_consumable_days
            WHERE app_id = $1::text AND day >= $2::text::date AND day <= $3::text::date
            GROUP BY 1, 2
        ) g
        ORDER BY g.day, g.product_id
        """
}
