import Hummingbird
import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle
import ShopkeeperHTTP
import ShopkeeperReports

/// Builds the subscriptions application: the same function serves `main` and the tests.
func buildApplication(
    settings: SubscriptionsSettings,
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let logger = Logger(label: "subscriptions")
    let database = settings.service.database.makeClient(logger: logger)
    let startup = StartupGate()
    let router = buildRouter(settings: settings, database: database, metrics: metrics, logger: logger)
    let sweeper = ExpirySweeper(
        subscriptions: SubscriptionPostgresRepository(client: database, logger: logger),
        trials: TrialPostgresRepository(client: database, logger: logger),
        interval: settings.sweepInterval, startup: startup, logger: logger)
    return ServiceApplication.make(
        responder: router.buildResponder(),
        settings: settings.service,
        database: database,
        migrations: SubscriptionsMigrations.runner,
        services: [sweeper]
            + reportRefresher(settings.reportRefresh, database: database, startup: startup, logger: logger),
        startup: startup,
        logger: logger
    )
}

/// The background refresh of the subscriptions summary (none when turned off).
func reportRefresher(_ interval: Duration?, database: PostgresClient, startup: StartupGate, logger: Logger)
    -> [any Service]
{
    guard let interval else { return [] }
    return [
        ReportSummaryRefresher(
            rollups: [ReportRollups.days], apps: ReportSummaryRefresher.distinctApps(in: "subscriptions.periods"),
            interval: interval, client: database, startup: startup, logger: logger)
    ]
}

/// The subscriptions service's routes and middleware: internal ones (its customers' routes go through entitlements,
/// which owns customers, and the verifier, which owns store facts), and the subscriptions report, which the gateway
/// routes here.
func buildRouter(
    settings: SubscriptionsSettings,
    database: PostgresClient,
    metrics: PrometheusCollectorRegistry,
    logger: Logger
) -> Router<ServiceRequestContext> {
    let router = Router(context: ServiceRequestContext.self)
    ServiceApplication.addStandardMiddleware(to: router, settings: settings.service)
    ServiceApplication.addOperationalRoutes(
        to: router,
        readiness: [.database(database, migrations: SubscriptionsMigrations.runner, logger: logger)],
        metrics: metrics
    )
    let bodyLimit = settings.service.maxBodyBytes
    router.addRoutes(
        ApplyController(
            subscriptions: SubscriptionPostgresRepository(client: database, logger: logger), maxBodyBytes: bodyLimit
        ).endpoints)
    router.addRoutes(
        TrialController(trials: TrialPostgresRepository(client: database, logger: logger), maxBodyBytes: bodyLimit)
            .endpoints)
    router.addRoutes(
        ReportController(reports: ReportPostgresRepository(client: database, logger: logger)).endpoints)
    return router
}
