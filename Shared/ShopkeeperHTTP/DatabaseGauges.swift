import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle

/// A gauge whose value is one small query's answer, such as the length of a work queue.
package struct DatabaseGauge: Sendable {
    /// The Prometheus name (`shopkeeper_..._backlog`).
    package var name: String
    /// A query answering one row of one `double precision` (cast a count with `::float8`).
    package var query: @Sendable () -> PostgresQuery

    package init(name: String, query: @escaping @Sendable () -> PostgresQuery) {
        self.name = name
        self.query = query
    }
}

/// Reads ``DatabaseGauge``s every `interval` and sets them (a ``LeasedPoller`` whose rounds lease nothing: every
/// replica reads them), so that backlog gauges cost the request path nothing: one query per gauge per interval per
/// replica, on the schema's partial indexes. A failed read keeps the last value and is logged at `debug` (the
/// service's readiness reports the database).
package struct DatabaseGaugeRefresher: Service, PolledWork {
    let client: PostgresClient
    let gauges: [DatabaseGauge]
    let interval: Duration
    let startup: StartupGate?
    let logger: Logger

    package init(
        client: PostgresClient, gauges: [DatabaseGauge], interval: Duration, startup: StartupGate?, logger: Logger
    ) {
        self.client = client
        self.gauges = gauges
        self.interval = interval
        self.startup = startup
        self.logger = logger
    }

    package func run() async throws {
        try await LeasedPoller(
            name: "database_gauges", work: self, interval: interval, startup: startup, logger: logger
        ).run()
    }

    /// Every gauge, every round.
    package func claim() async throws -> ClaimedBatch<DatabaseGauge> {
        ClaimedBatch(gauges, count: gauges.count, limit: .max)
    }

    /// Reads one gauge and sets it (the metrics factory keeps one instrument per name).
    package func process(_ gauge: DatabaseGauge) async {
        if let value = await read(gauge) { Gauge(label: gauge.name).record(value) }
    }

    /// One gauge's current value, or `nil` when the database did not answer.
    package func read(_ gauge: DatabaseGauge) async -> Double? {
        do {
            let rows = try await client.query(gauge.query(), logger: logger)
            for try await value in rows.decode(Double.self) { return value }
            return 0
        } catch {
            logger.debug(
                "could not read a backlog gauge", metadata: ["gauge": "\(gauge.name)", "error": "\(error)"])
            return nil
        }
    }
}

extension ServiceApplication {
    /// The refresher of `gauges`, when `settings` ask for backlog gauges (``ObservabilitySettings``).
    package static func databaseGauges(
        _ gauges: [DatabaseGauge], settings: ServiceSettings, database: PostgresClient, startup: StartupGate?,
        logger: Logger
    ) -> [any Service] {
        guard let interval = settings.observability.backlogInterval, !gauges.isEmpty else { return [] }
        return [
            DatabaseGaugeRefresher(
                client: database, gauges: gauges, interval: interval, startup: startup, logger: logger)
        ]
    }
}
