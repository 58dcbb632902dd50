import AsyncHTTPClient
import Hummingbird
import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle
import ShopkeeperClients
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperReports
import ShopkeeperStoredCustomerInfo

/// Builds the entitlements application: the same function serves `main` and the tests.
///
/// `webhookResolver` resolves webhook hosts (the system's resolver; tests give names of their own).
func buildApplication(
    settings: EntitlementsSettings,
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
    webhookResolver: any WebhookResolver = SystemWebhookResolver()
) async throws -> some ApplicationProtocol {
    let logger = Logger(label: "entitlements")
    let database = settings.service.database.makeClient(logger: logger)
    let cache = settings.makeCustomerInfoCache()
    let startup = StartupGate()
    let httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
    let lastSeen = LastSeenRecorder(
        client: database, resolution: LastSeenRecorder.defaultResolution, startup: startup, logger: logger)
    let router = buildRouter(
        settings: settings, database: database, metrics: metrics, logger: logger, cache: cache, lastSeen: lastSeen,
        subscriptions: subscriptionsClient(settings: settings, httpClient: httpClient))
    let dispatcher = WebhookDispatcher(
        queue: WebhookDeliveryPostgresQueue(client: database, logger: logger),
        sender: WebhookSender(
            timeout: settings.webhooks.timeout, policy: settings.webhookURLPolicy, resolver: webhookResolver,
            logger: logger),
        secrets: WebhookSecretBox(masterKey: settings.masterKey),
        settings: settings.webhooks,
        startup: startup,
        logger: logger
    )
    // The change listener holds a session in LISTEN: a connection of its own, outside the pool (straight to
    // PostgreSQL through a transaction pooler). Without one (a transaction pooler and no DATABASE_DIRECT_URL, which
    // the settings allow only with the cache off) the cache never goes live.
    // With the cache off (`SHOPKEEPER_CUSTOMER_CACHE_MS=0`) there is nothing to listen for and no connection is held.
    let listener: [any Service] =
        (cache.isEnabled ? settings.service.database.sessionSettings : nil).map { session in
            let client = session.makeClient(logger: logger)
            return [client, CustomerChangeListener(client: client, cache: cache, startup: startup, logger: logger)]
        } ?? []
    return ServiceApplication.make(
        responder: router.buildResponder(),
        settings: settings.service,
        database: database,
        migrations: EntitlementsMigrations.runner,
        // Stopped in reverse order: the dispatcher finishes its attempts (each with a client of its own) first.
        services: [HTTPClientService(client: httpClient), lastSeen, dispatcher] + listener + [
            SubscriptionRelayService(
                relay: SubscriptionChangeRelay(client: database, logger: logger), interval: settings.relayInterval,
                startup: startup, logger: logger)
        ]
            + ReportSummaryRefresher.services(
                every: settings.reportRefresh,
                rollups: [ReportRollups.sales, ReportRollups.usage, ReportRollups.consumables],
                appsTable: "entitlements.transactions", client: database, startup: startup, logger: logger)
            + ServiceApplication.databaseGauges(
                WebhookMetrics.backlogGauges, settings: settings.service, database: database, startup: startup,
                logger: logger),
        startup: startup,
        logger: logger
    )
}

/// The signed client of the subscriptions service's internal API.
func subscriptionsClient(settings: EntitlementsSettings, httpClient: HTTPClient) -> SubscriptionsClient {
    SubscriptionsClient(
        client: InternalClient(
            service: "subscriptions", baseURL: settings.subscriptionsURL, httpClient: httpClient,
            signature: settings.service.internalSignature, timeout: settings.subscriptionsTimeout))
}

/// The entitlements service's routes and middleware.
func buildRouter(
    settings: EntitlementsSettings,
    database: PostgresClient,
    metrics: PrometheusCollectorRegistry,
    logger: Logger,
    cache: CustomerInfoCache? = nil,
    lastSeen: LastSeenRecorder? = nil,
    subscriptions: SubscriptionsClient
) -> Router<ServiceRequestContext> {
    let cache = cache ?? settings.makeCustomerInfoCache()
    // (A recorder nobody runs gathers and never writes: routers built alone, for tests of their answers only.)
    let lastSeen =
        lastSeen
        ?? LastSeenRecorder(
            client: database, resolution: LastSeenRecorder.defaultResolution, startup: nil, logger: logger)
    let router = ServiceApplication.makeRouter(
        settings: settings.service, database: database, migrations: EntitlementsMigrations.runner, metrics: metrics,
        logger: logger)
    router.addMiddleware { CustomerCacheInvalidationMiddleware(cache: cache) }
    let purchases = PurchasePostgresRepository(client: database, cache: cache, logger: logger)
    let customers = CustomerPostgresRepository(client: database, cache: cache, lastSeen: lastSeen, logger: logger)
    router.addRoutes(
        ApplyController(purchases: purchases, maxBodyBytes: settings.service.maxBodyBytes).endpoints)
    router.addRoutes(
        AppEventController(
            events: AppEventPostgresRepository(client: database, logger: logger),
            maxBodyBytes: settings.service.maxBodyBytes
        ).endpoints)
    router.addRoutes(
        CustomerController(customers: customers, gatewayCacheTTL: settings.customerGatewayCacheTTL).endpoints,
        atPath: "/v1/customers")
    let webhookSecrets = WebhookSecretBox(masterKey: settings.masterKey)
    router.addRoutes(
        SettingsController(
            repository: SettingsPostgresRepository(client: database, box: webhookSecrets, logger: logger),
            urlPolicy: settings.webhookURLPolicy, maxBodyBytes: settings.service.maxBodyBytes
        ).endpoints,
        atPath: "/v1/admin/entitlements")
    router.addRoutes(
        WebhookEndpointController(
            repository: WebhookEndpointPostgresRepository(client: database, box: webhookSecrets, logger: logger),
            urlPolicy: settings.webhookURLPolicy, maxBodyBytes: settings.service.maxBodyBytes
        ).endpoints,
        atPath: "/v1/admin/webhook-endpoints")
    router.addRoutes(
        EventController(events: EventPostgresRepository(client: database, logger: logger)).endpoints,
        atPath: "/v1/admin/events")
    router.addRoutes(
        ReportController(reports: ReportPostgresRepository(client: database, logger: logger)).endpoints,
        atPath: "/v1/admin/reports")
    router.addRoutes(
        ExchangeRateController(rates: ExchangeRatePostgresRepository(client: database, logger: logger)).endpoints,
        atPath: "/v1/admin/exchange-rates")
    let bodyLimit = settings.service.maxBodyBytes
    let aliases = AliasPostgresRepository(client: database, logger: logger)
    let consumables = ConsumablePostgresRepository(client: database, logger: logger)
    let grants = PromotionalGrantPostgresRepository(client: database, logger: logger)
    let history = HistoryPostgresRepository(client: database, logger: logger)
    let devices = PurchaseDevicePostgresRepository(client: database, logger: logger)
    router.addRoutes(AliasController(aliases: aliases, maxBodyBytes: bodyLimit).endpoints, atPath: "/v1/customers")
    let suspendedAliases = SuspendedAliasController(aliases: aliases, maxBodyBytes: bodyLimit)
    router.addRoutes(suspendedAliases.internalEndpoints, atPath: "/internal/v1/aliases")
    router.addRoutes(suspendedAliases.adminEndpoints, atPath: "/v1/admin/aliases/suspended")
    router.addRoutes(
        ConsumeController(consumables: consumables, maxBodyBytes: bodyLimit).endpoints, atPath: "/v1/customers")
    router.addRoutes(
        PromotionalGrantController(grants: grants, maxBodyBytes: bodyLimit).endpoints, atPath: "/v1/customers")
    router.addRoutes(HistoryController(history: history).endpoints, atPath: "/v1/customers")
    let lookups = CustomerLookupController(
        customers: CustomerLookupPostgresRepository(client: database, logger: logger))
    router.addRoutes(lookups.searchEndpoints, atPath: "/v1/admin/customers")
    router.addRoutes(
        CustomerLTVController(customers: CustomerLTVPostgresRepository(client: database, logger: logger)).endpoints,
        atPath: "/v1/admin/customers")
    router.addRoutes(lookups.explainEndpoints, atPath: "/v1/customers")
    router.addRoutes(PurchaseDeviceController(devices: devices).endpoints, atPath: "/v1/admin/purchases")
    let trialCustomers = TrialCustomerPostgresRepository(client: database, logger: logger)
    router.addRoutes(
        TrialController(customers: trialCustomers, subscriptions: subscriptions, maxBodyBytes: bodyLimit).endpoints,
        atPath: "/v1/customers")
    router.addRoutes(
        OfferContextController(
            customers: trialCustomers, facts: OfferFactsPostgresRepository(client: database, logger: logger),
            subscriptions: subscriptions, maxBodyBytes: bodyLimit
        ).endpoints)
    router.addRoutes(
        AppTransactionController(
            repository: AppTransactionPostgresRepository(client: database, logger: logger), maxBodyBytes: bodyLimit
        ).endpoints)
    let productGrants = ProductGrantPostgresRepository(client: database, logger: logger)
    router.addRoutes(
        ProductClaimController(grants: productGrants, maxBodyBytes: bodyLimit).endpoints, atPath: "/v1/customers")
    router.addRoutes(
        ContentAccessController(
            repository: ContentAccessPostgresRepository(client: database, logger: logger), grants: productGrants,
            maxBodyBytes: bodyLimit
        ).endpoints)
    router.addRoutes(
        RedemptionController(
            redemptions: RedemptionPostgresRepository(client: database, logger: logger),
            lifetime: settings.redemptionCodeLifetime, maxBodyBytes: bodyLimit
        ).endpoints, atPath: "/v1/customers")
    router.addRoutes(
        StorePurchaseController(
            purchases: StorePurchasePostgresRepository(client: database, logger: logger), maxBodyBytes: bodyLimit
        ).endpoints)
    return router
}
