import Logging
import PostgresNIO
import ServiceLifecycle
import ShopkeeperCore
import ShopkeeperHTTP

/// Keeps every app's daily report summaries (``DailyRollup``) up to date in the background, so that no report request
/// pays for building them: the first summary of an app with a year of a million purchases takes seconds (about 12 s
/// for the sales), which a request would otherwise spend behind the gateway's timeout. A request still refreshes what
/// changed since (a few minutes of facts at most: milliseconds).
///
/// Every ``interval`` (the first time one interval after start), it lists the apps that have facts (``apps``) and
/// refreshes each summary of each in turn (a ``LeasedPoller``). Replicas may all run it: a refresh takes the app's
/// summary lock, so a second one waits and then finds nothing to do.
package struct ReportSummaryRefresher: Service, PolledWork {
    /// The summaries, refreshed in this order for each app.
    package let rollups: [DailyRollup]
    /// One `text` column: the apps with facts in the summaries' tables (``distinctApps(in:)``).
    package let apps: String
    /// Time between two rounds.
    package let interval: Duration
    package let client: PostgresClient
    package let startup: StartupGate
    package let logger: Logger

    package init(
        rollups: [DailyRollup], apps: String, interval: Duration, client: PostgresClient, startup: StartupGate,
        logger: Logger
    ) {
        self.rollups = rollups
        self.apps = apps
        self.interval = interval
        self.client = client
        self.startup = startup
        self.logger = logger
    }

    /// A service's refresher as its list of background services: one refresher of `rollups` for the apps of
    /// `appsTable` (``distinctApps(in:)``) every `interval`, or none when the refresh is turned off (`nil`).
    package static func services(
        every interval: Duration?, rollups: [DailyRollup], appsTable: String, client: PostgresClient,
        startup: StartupGate, logger: Logger
    ) -> [any Service] {
        guard let interval else { return [] }
        return [
            ReportSummaryRefresher(
                rollups: rollups, apps: distinctApps(in: appsTable), interval: interval, client: client,
                startup: startup, logger: logger)
        ]
    }

    /// The apps of a table with an index that leads with `app_id`, found by skipping from one app to the next (a few
    /// index lookups per app rather than a scan of every row).
    package static func distinctApps(in table: String) -> String {
        """
        WITH RECURSIVE apps(app_id) AS (
            (SELECT app_id FROM \(table) ORDER BY app_id LIMIT 1)
            UNION ALL
            SELECT (SELECT t.app_id FROM \(table) t WHERE t.app_id > apps.app_id ORDER BY t.app_id LIMIT 1)
            FROM apps WHERE apps.app_id IS NOT NULL
        )
        SELECT app_id FROM apps WHERE app_id IS NOT NULL
        """
    }

    package func run() async throws {
        // A round first after one interval: a process that starts and stops again soon (a rollout's replica that
        // loses its place, a test) does no work for others' reports.
        try await LeasedPoller(
            name: "report_summary_refresher", work: self, interval: interval, firstRound: .afterInterval,
            startup: startup, logger: logger
        ).run()
    }

    /// The apps with facts; a round refreshes each one's summaries.
    package func claim() async throws -> ClaimedBatch<String> {
        var found: [String] = []
        let rows = try await client.query(PostgresQuery(unsafeSQL: apps), logger: logger)
        for try await app in rows.decode(String.self) { found.append(app) }
        // Never full: the next round comes after the interval.
        return ClaimedBatch(found, count: found.count, limit: .max)
    }

    package func process(_ app: String) async {
        _ = await refresh(app)
    }

    /// One round: every summary of every app with facts. Returns how many summaries were refreshed.
    @discardableResult
    package func refreshAll() async -> Int {
        let found: [String]
        do {
            found = try await claim().items
        } catch {
            logger.warning("could not list the apps to summarize", metadata: ["error": "\(String(reflecting: error))"])
            return 0
        }
        var refreshed = 0
        for app in found {
            guard !Task.isCancelled else { break }
            refreshed += await refresh(app)
        }
        return refreshed
    }

    /// Refreshes each summary of `app`; returns how many were refreshed (a failure is logged: the next round, or the
    /// next report request, tries again).
    private func refresh(_ app: String) async -> Int {
        var refreshed = 0
        for rollup in rollups {
            guard !Task.isCancelled else { break }
            do {
                try await rollup.refresh(appID: app, client: client, logger: logger)
                refreshed += 1
            } catch {
                if !Task.isCancelled {
                    logger.warning(
                        "could not refresh a report summary",
                        metadata: [
                            "rollup": "\(rollup.name)", "app_id": "\(app)", "error": "\(String(reflecting: error))",
                        ])
                }
            }
        }
        return refreshed
    }
}

/// `SHOPKEEPER_REPORT_REFRESH_SECONDS`: how often the report summaries are refreshed in the background
/// (``ReportSummaryRefresher``); `0` leaves them to the report requests alone.
package enum ReportRefreshSetting {
    package static let variable = "SHOPKEEPER_REPORT_REFRESH_SECONDS"

    /// The interval, or nil when turned off. Default 300 s; at most a day.
    package static func read(from environment: EnvironmentReader) throws(ConfigurationError) -> Duration? {
        let interval = try environment.seconds(variable, default: .seconds(300), in: 0...86_400)
        return interval == .zero ? nil : interval
    }
}
