import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperReports

/// The subscriptions service's settings: the common ones plus
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_PORT` | `8084` | |
/// | `SHOPKEEPER_EXPIRY_SWEEP_MS` | `1000` | how often the expiry sweep looks for subscriptions and trials whose period ended with no news (the state a customer sees is exact regardless; this is when the stored state and the events catch up) |
/// | `SHOPKEEPER_REPORT_REFRESH_SECONDS` | `300` | how often the report summaries of every app are brought up to date in the background, so a report request never builds them; `0`: only report requests do |
struct SubscriptionsSettings: Sendable {
    var service: ServiceSettings
    var sweepInterval: Duration
    /// ``ReportSummaryRefresher``'s interval; nil: off.
    var reportRefresh: Duration? = .seconds(300)

    static func read(from environment: EnvironmentReader = EnvironmentReader()) throws(ConfigurationError)
        -> SubscriptionsSettings
    {
        SubscriptionsSettings(
            service: try ServiceSettings.read(service: "subscriptions", defaultPort: 8084, from: environment),
            sweepInterval: .milliseconds(
                try environment.int("SHOPKEEPER_EXPIRY_SWEEP_MS", default: 1000, in: 10...600_000)),
            reportRefresh: try ReportRefreshSetting.read(from: environment)
        )
    }
}
