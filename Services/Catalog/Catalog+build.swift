import Hummingbird
import Logging
import PostgresNIO
import Prometheus
import ShopkeeperHTTP

/// Builds the catalog application: the same function serves `main` and the tests.
func buildApplication(
    settings: CatalogSettings,
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let logger = Logger(label: "catalog")
    let database = settings.service.database.makeClient(logger: logger)
    let repository = ProductPostgresRepository(client: database, logger: logger)
    let router = buildRouter(
        settings: settings, repository: repository, database: database, metrics: metrics, logger: logger)
    return ServiceApplication.make(
        responder: router.buildResponder(),
        settings: settings.service,
        database: database,
        migrations: CatalogMigrations.runner,
        logger: logger
    )
}

/// The catalog's routes and middleware.
func buildRouter(
    settings: CatalogSettings,
    repository: any ProductRepository,
    database: PostgresClient,
    metrics: PrometheusCollectorRegistry,
    logger: Logger
) -> Router<ServiceRequestContext> {
    let router = ServiceApplication.makeRouter(
        settings: settings.service, database: database, migrations: CatalogMigrations.runner, metrics: metrics,
        logger: logger)
    let cache = CatalogCache(repository: repository, refreshInterval: settings.refreshInterval)
    router.addRoutes(
        CatalogController(cache: cache, gatewayCacheTTL: settings.refreshInterval).endpoints, atPath: "/v1/catalog")
    let admin = ProductAdminController(
        repository: repository,
        cache: cache,
        maxBodyBytes: settings.service.maxBodyBytes,
        maxImportBytes: max(settings.service.maxBodyBytes, 16 << 20)
    )
    router.addRoutes(admin.productEndpoints, atPath: "/v1/admin/products")
    router.addRoutes(admin.catalogEndpoints, atPath: "/v1/admin/catalog")
    router.addRoutes(
        CatalogSyncController(
            repository: repository, log: CatalogSyncLog(client: database, logger: logger), cache: cache,
            maxBodyBytes: max(settings.service.maxBodyBytes, 16 << 20)
        ).endpoints)
    let experiments = ExperimentPostgresRepository(client: database, logger: logger)
    router.addRoutes(
        OfferingController(
            cache: cache, facts: CustomerFactsPostgresReader(client: database, logger: logger),
            exposures: ExposureRecorder(repository: experiments), gatewayCacheTTL: settings.refreshInterval
        ).endpoints,
        atPath: "/v1/offerings")
    let offeringAdmin = OfferingAdminController(
        repository: OfferingPostgresRepository(client: database, logger: logger), cache: cache,
        maxBodyBytes: settings.service.maxBodyBytes)
    router.addRoutes(offeringAdmin.offeringEndpoints, atPath: "/v1/admin/offerings")
    router.addRoutes(offeringAdmin.ruleEndpoints, atPath: "/v1/admin/offering-rules")
    router.addRoutes(
        ExperimentAdminController(
            repository: experiments, cache: cache, maxBodyBytes: settings.service.maxBodyBytes
        ).endpoints,
        atPath: "/v1/admin/experiments")
    router.addRoutes(
        ExperimentReportController(
            experiments: experiments, results: ExperimentResultsPostgresReader(client: database, logger: logger)
        ).endpoints,
        atPath: "/v1/admin/reports/experiments")
    return router
}
