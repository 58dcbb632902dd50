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
    static let consumables = ReportSpec(
        name: "consumables", dimensions: ["day", "product"], defaultGroupBy: ["day"], hasEnvironment: false)
}
