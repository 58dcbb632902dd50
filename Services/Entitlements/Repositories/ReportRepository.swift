import ShopkeeperReports

/// The reports over the facts the entitlements service records: sales, purchases by app version, consumable units.
protocol ReportRepository: Sendable {
    /// Purchases, renewals, units, revenue, refunds and refunded amounts, per currency.
    func sales(appID: String, request: ReportRequest) async throws -> ReportTable
    /// Purchases, renewals and units by the app version each purchase was first presented from.
    func usage(appID: String, request: ReportRequest) async throws -> ReportTable
    /// Consumable units bought, spent and refunded.
    func consumables(appID: String, request: ReportRequest) async throws -> ReportTable
    /// MRR, ARR, active paid subscriptions and MRR movements per day, in `currency` (converted at the loaded exchange
    /// rates) or, when `nil`, per currency as paid.
    func mrr(appID: String, request: ReportRequest, currency: String?) async throws -> ReportTable
    /// Free trials started per trial cohort, and how many converted to a paid period or were still running.
    func trialConversion(appID: String, request: ReportRequest) async throws -> ReportTable
    /// Subscriptions per start cohort, and how many had paid access in each month since their start.
    func retention(appID: String, request: ReportRequest) async throws -> ReportTable
    /// Active subscriptions and trials at each day's end, new customers and new paying customers per day.
    func activity(appID: String, request: ReportRequest) async throws -> ReportTable
    /// Churn, refunds or realized LTV (``RevenueChart``), in `currency` or per currency as paid.
    func revenueChart(_ chart: RevenueChart, appID: String, request: ReportRequest, currency: String?) async throws
        -> ReportTable
}

/// What each report of the entitlements service accepts.
enum EntitlementsReports {
    static let sales = ReportSpec(
        name: "sales", dimensions: ["day", "product", "store", "storefront"], defaultGroupBy: ["day"],
        hasEnvironment: true)
    static let usage = ReportSpec(
        name: "usage", dimensions: ["day", "app_version", "product"], defaultGroupBy: ["app_version"],
        hasEnvironment: true)
    static let mrr = ReportSpec(
        name: "mrr", dimensions: ["day", "product", "store", "storefront"], defaultGroupBy: ["day"],
        requiredDimensions: ["day"], hasEnvironment: true)
    /// The charts after MRR: rows (or cohorts) by `month` or `day` (not both; neither: the range in one row).
    static let trialConversion = chart("trial-conversion")
    static let retention = chart("retention")
    static let activity = ReportSpec(
        name: "activity", dimensions: ["day"], defaultGroupBy: ["day"], requiredDimensions: ["day"],
        hasEnvironment: true)
    static let churn = chart("churn")
    static let refunds = chart("refunds")
    static let ltv = chart("ltv")
    static let consumables = ReportSpec(
        name: "consumables", dimensions: ["day", "product"], defaultGroupBy: ["day"], hasEnvironment: false)

    static func chart(_ name: String) -> ReportSpec {
        ReportSpec(
            name: name, dimensions: ["month", "day", "product", "store", "storefront"], defaultGroupBy: ["month"],
            hasEnvironment: true)
    }
}
