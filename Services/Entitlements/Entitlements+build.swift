import Hummingbird
import Logging
import PostgresNIO
import Prometheus
import ShopkeeperHTTP

/// Builds the entitlements application: the same function serves `main` and the tests.
func buildApplication(
    settings: EntitlementsSettings,
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let logger = Logger(label: "entitlements")
    let database = settings.service.database.makeClient(logger: logger)
    let router = buildRouter(settings: settings, database: database, metrics: metrics, logger: logger)
    return ServiceApplication.make(
        responder: router.buildResponder(),
        settings: settings.service,
        database: database,
        migrations: EntitlementsMigrations.runner,
        logger: logger
    )
}

/// The entitlements service's routes and middleware.
func buildRouter(
    settings: EntitlementsSettings,
    database: PostgresClient,
    metrics: PrometheusCollectorRegistry,
    logger: Logger
) -> Router<ServiceRequestContext> {
    let router = Router(context: ServiceRequestContext.self)
    ServiceApplication.addStandardMiddleware(to: router, settings: settings.service)
    ServiceApplication.addOperationalRoutes(
        to: router,
        readiness: [.database(database, migrations: EntitlementsMigrations.runner, logger: logger)],
        metrics: metrics
    )
    let purchases = PurchasePostgresRepository(client: database, logger: logger)
    let customers = CustomerPostgresRepository(client: database, logger: logger)
    ApplyController(purchases: purchases, maxBodyBytes: settings.service.maxBodyBytes).addRoutes(to: router)
    router.addRoutes(CustomerController(customers: customers).endpoints, atPath: "/v1/customers")
    let bodyLimit = settings.service.maxBodyBytes
    let aliases = AliasPostgresRepository(client: database, logger: logger)
    let consumables = ConsumablePostgresRepository(client: database, logger: logger)
    let grants = PromotionalGrantPostgresRepository(client: database, logger: logger)
    let history = HistoryPostgresRepository(client: database, logger: logger)
    let devices = PurchaseDevicePostgresRepository(client: database, logger: logger)
    router.addRoutes(AliasController(aliases: aliases, maxBodyBytes: bodyLimit).endpoints, atPath: "/v1/customers")
    router.addRoutes(
        ConsumeController(consumables: consumables, maxBodyBytes: bodyLimit).endpoints, atPath: "/v1/customers")
    router.addRoutes(
        PromotionalGrantController(grants: grants, maxBodyBytes: bodyLimit).endpoints, atPath: "/v1/customers")
    router.addRoutes(HistoryController(history: history).endpoints, atPath: "/v1/customers")
    router.addRoutes(PurchaseDeviceController(devices: devices).endpoints, atPath: "/v1/admin/purchases")
    return router
}
