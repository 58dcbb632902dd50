import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperReports

extension ReportPostgresRepository {
    /// The trial conversion chart (``CohortReports/trialConversion``).
    func trialConversion(appID: String, request: ReportRequest) async throws -> ReportTable {
        try await cohortTable(
            report: "trial-conversion", sql: CohortReports.trialConversion, appID: appID, request: request,
            figures: [
                ReportColumn("trials", .sum), ReportColumn("converted", .sum), ReportColumn("pending", .sum),
            ])
    }

    /// The subscription retention chart (``CohortReports/retention``).
    func retention(appID: String, request: ReportRequest) async throws -> ReportTable {
        try await cohortTable(
            report: "retention", sql: CohortReports.retention, appID: appID, request: request,
            figures: [
                ReportColumn("period", .other), ReportColumn("subscriptions", .other), ReportColumn("reached", .other),
                ReportColumn("retained", .other),
            ])
    }

    /// Active subscriptions and trials, new customers and new paying customers per day (``CohortReports/activity``).
    func activity(appID: String, request: ReportRequest) async throws -> ReportTable {
        let query = PostgresQuery(
            unsafeSQL: CohortReports.activity,
            binds: try PostgresBindings(
                appID, request.from.description, request.to.description,
                request.environment?.rawValue ?? "production"))
        return try await ReportQuery.table(
            report: "activity", request: request,
            columns: [
                (ReportColumn("day", .dimension), true), (ReportColumn("active_subscriptions", .other), true),
                (ReportColumn("active_trials", .other), true), (ReportColumn("new_customers", .sum), true),
                (ReportColumn("new_paying_customers", .sum), true),
            ],
            query: query, client: client, logger: logger)
    }

    /// A cohort chart's table: `cohort` (when grouped by month or day), `product_id`, `store`, `storefront` (when
    /// grouped by them), then `figures`, as ``CohortReports`` binds and selects them.
    private func cohortTable(
        report: String, sql: String, appID: String, request: ReportRequest, figures: [ReportColumn]
    ) async throws -> ReportTable {
        let environment: String = request.environment?.rawValue ?? "production"
        let query = PostgresQuery(
            unsafeSQL: sql,
            binds: try PostgresBindings(
                appID, request.from.description, request.to.description, environment, request.groups(by: "month"),
                request.groups(by: "day"), request.groups(by: "product"), request.groups(by: "store"),
                request.groups(by: "storefront")))
        return try await ReportQuery.table(
            report: report, request: request,
            columns: [
                (ReportColumn("cohort", .dimension), request.groups(by: "month") || request.groups(by: "day")),
                (ReportColumn("product_id", .dimension), request.groups(by: "product")),
                (ReportColumn("store", .dimension), request.groups(by: "store")),
                (ReportColumn("storefront", .dimension), request.groups(by: "storefront")),
            ] + figures.map { ($0, true) },
            query: query, client: client, logger: logger)
    }
}
