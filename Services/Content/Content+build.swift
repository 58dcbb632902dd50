import AsyncHTTPClient
import Hummingbird
import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperReports

/// Builds the content application: the same function serves `main` and the tests.
func buildApplication(
    settings: ContentSettings,
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let logger = Logger(label: "content")
    let database = settings.service.database.makeClient(logger: logger)
    let httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
    let startup = StartupGate()
    let storage = DiskContentStorage(root: settings.storageDirectory, reserveBytes: settings.limits.reserveBytes)
    try await storage.prepare()
    let router = buildRouter(
        settings: settings, database: database, storage: storage,
        entitlements: entitlementsClient(settings: settings, httpClient: httpClient), metrics: metrics, logger: logger)
    return ServiceApplication.make(
        responder: router.buildResponder(),
        settings: settings.service,
        database: database,
        migrations: ContentMigrations.runner,
        services: [HTTPClientService(client: httpClient)]
            + ReportSummaryRefresher.services(
                every: settings.reportRefresh, rollups: [ReportRollups.downloads, ReportRollups.devices],
                appsTable: "content.downloads", client: database, startup: startup, logger: logger),
        startup: startup,
        logger: logger
    )
}

/// The signed client of the entitlements service's internal API.
func entitlementsClient(settings: ContentSettings, httpClient: HTTPClient) -> EntitlementsClient {
    EntitlementsClient(
        client: InternalClient(
            service: "entitlements", baseURL: settings.entitlementsURL, httpClient: httpClient,
            signature: settings.service.internalSignature, timeout: settings.entitlementsTimeout,
            maxResponseBytes: 1 << 20))
}

/// The content service's routes and middleware.
func buildRouter(
    settings: ContentSettings,
    database: PostgresClient,
    storage: any ContentStorage,
    entitlements: EntitlementsClient,
    metrics: PrometheusCollectorRegistry,
    logger: Logger
) -> Router<ServiceRequestContext> {
    let router = ServiceApplication.makeRouter(
        settings: settings.service, database: database, migrations: ContentMigrations.runner, metrics: metrics,
        logger: logger)
    let repository = ContentPostgresRepository(client: database, logger: logger)
    let signature = DownloadSignature(secret: settings.urlSecret)
    let delivery = ContentDelivery(
        repository: repository, entitlements: entitlements, signature: signature, urlLifetime: settings.urlLifetime,
        publicBaseURL: settings.publicBaseURL)
    let bodyLimit = settings.service.maxBodyBytes
    router.addRoutes(
        ContentAdminController(
            repository: repository, storage: storage, limits: settings.limits, maxBodyBytes: bodyLimit
        ).endpoints,
        atPath: "/v1/admin/content")
    router.addRoutes(
        ManifestController(delivery: delivery, repository: repository, maxBodyBytes: bodyLimit).endpoints)
    router.addRoutes(
        ContentDeviceController(devices: ContentDevicePostgresRepository(client: database, logger: logger)).endpoints)
    router.addRoutes(
        DownloadController(
            delivery: delivery, repository: repository, storage: storage, signature: signature,
            chunkBytes: settings.readChunkBytes
        ).endpoints)
    router.addRoutes(
        ReportController(reports: ReportPostgresRepository(client: database, logger: logger)).endpoints)
    return router
}
