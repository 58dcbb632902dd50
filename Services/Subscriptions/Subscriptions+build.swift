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
            + ReportSummaryRefresher.services(
                every: settings.reportRefresh, rollups: [ReportRollups.days],
                appsTable: "subscriptions.periods", client: database, startup: startup, logger: logger),
        startup: startup,
        logger: logger
    )
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
    let router = ServiceApplication.makeRouter(
        settings: settings.service, database: database, migrations: SubscriptionsMigrations.runner, metrics: metrics,
        logger: logger)
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
