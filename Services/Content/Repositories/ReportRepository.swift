import ShopkeeperReports

/// The content report: downloads per pack version and day, their devices and re-downloads (``ReportRollups``).
protocol ReportRepository: Sendable {
    func downloads(appID: String, request: ReportRequest) async throws -> ReportTable
}

/// What the content report accepts; a grouping by version is by product and version.
enum ContentReports {
    static let content = ReportSpec(
        name: "content", dimensions: ["day", "product", "version"], defaultGroupBy: ["day", "version"],
        hasEnvironment: false)
}
