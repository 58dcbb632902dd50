import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperReports

/// What distinguishes the charts of ``RevenueCharts``: their name, first column, statements and figures.
enum RevenueChart {
    case churn, refunds, ltv

    var report: String {
        switch self {
        case .churn: "churn"
        case .refunds: "refunds"
        case .ltv: "ltv"
        }
    }

    /// The row's first day: a period's, or a cohort's.
    var first: String { self == .ltv ? "cohort" : "period_start" }

    /// The statement that selects the first fact no loaded rate converts.
    var missingRate: String {
        switch self {
        case .churn: MRRReport.missingRate
        case .refunds: RevenueCharts.refundsMissingRate
        case .ltv: RevenueCharts.ltvMissingRate
        }
    }

    var sql: String {
        switch self {
        case .churn: RevenueCharts.churn
        case .refunds: RevenueCharts.refunds
        case .ltv: RevenueCharts.ltv
        }
    }

    /// The figures after the dimensions and the currency.
    var figures: [ReportColumn] {
        switch self {
        case .churn:
            [
                ReportColumn("active_at_start", .other), ReportColumn("churned", .sum),
                ReportColumn("mrr_at_start_milliunits", .other), ReportColumn("churned_mrr_milliunits", .sum),
            ]
        case .refunds:
            [
                ReportColumn("transactions", .sum), ReportColumn("refunds", .sum),
                ReportColumn("revenue_milliunits", .sum), ReportColumn("refunded_milliunits", .sum),
            ]
        case .ltv:
            [
                ReportColumn("customers", .sum), ReportColumn("revenue_milliunits", .sum),
                ReportColumn("refunded_milliunits", .sum), ReportColumn("ltv_milliunits", .other),
            ]
        }
    }
}

extension ReportPostgresRepository {
    /// Churn, refunds or LTV (``RevenueChart``): checks the rates
    /// (``requireRates(_:appID:request:currency:on:logger:)``), then answers its first day (when grouped by month or
    /// day), `product_id`, `store`, `storefront` (when grouped by them), `currency`, its figures and, converted,
    /// `rates`; totals per currency.
    func revenueChart(_ chart: RevenueChart, appID: String, request: ReportRequest, currency: String?) async throws
        -> ReportTable
    {
        try await ReportQuery.withConnection(client: client, logger: logger) { connection in
            try await Self.requireRates(
                chart.missingRate, appID: appID, request: request, currency: currency, on: connection,
                logger: logger)
            let query = PostgresQuery(
                unsafeSQL: chart.sql,
                binds: try PostgresBindings(
                    appID, request.from.description, request.to.description,
                    request.environment?.rawValue ?? "production", currency, request.groups(by: "store"),
                    request.groups(by: "product"), request.groups(by: "storefront"), request.groups(by: "month"),
                    request.groups(by: "day")))
            return try await ReportQuery.table(
                report: chart.report, request: request,
                columns: [
                    (ReportColumn(chart.first, .dimension), request.groups(by: "month") || request.groups(by: "day")),
                    (ReportColumn("product_id", .dimension), request.groups(by: "product")),
                    (ReportColumn("store", .dimension), request.groups(by: "store")),
                    (ReportColumn("storefront", .dimension), request.groups(by: "storefront")),
                    (ReportColumn("currency", .dimension), true),
                ] + chart.figures.map { ($0, true) } + [(ReportColumn("rates", .note), currency != nil)],
                query: query, totalsBy: ["currency"], on: connection, logger: logger)
        }
    }
}
