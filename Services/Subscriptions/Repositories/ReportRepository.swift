import ShopkeeperReports

/// The subscriptions report: per UTC day, what happened to the app's subscriptions and how many were in each state at
/// the day's end (``ReportRollups``).
protocol ReportRepository: Sendable {
    func subscriptions(appID: String, request: ReportRequest) async throws -> ReportTable
}

/// What the subscriptions report accepts: per day always (a state is counted at each day's end), per product too.
enum SubscriptionsReports {
    static let subscriptions = ReportSpec(
        name: "subscriptions", dimensions: ["day", "product"], defaultGroupBy: ["day"], requiredDimensions: ["day"],
        hasEnvironment: true)
}
