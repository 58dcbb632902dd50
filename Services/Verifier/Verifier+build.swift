import AsyncHTTPClient
import Hummingbird
import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle
import ShopkeeperClients
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperStores

/// Builds the verifier application: the same function serves `main` and the tests.
func buildApplication(
    settings: VerifierSettings,
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let logger = Logger(label: "verifier")
    let database = settings.service.database.makeClient(logger: logger)
    let httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
    let components = try VerifierComponents(
        settings: settings, database: database, httpClient: httpClient, logger: logger)
    let router = buildRouter(
        settings: settings, components: components, database: database, metrics: metrics, logger: logger)
    let startup = StartupGate()
    var worker = PendingApplyWorker(
        transactions: components.transactions, projections: components.projections,
        interval: settings.applyRetryInterval, startup: startup, logger: logger)
    worker.consumer = components.consumer
    var notifications = NotificationWorker(
        inbox: components.inbox, apple: components.appleNotifications, google: components.googleNotifications,
        stripe: components.stripeEvents, transactions: components.transactions,
        projections: components.projections, interval: settings.notificationRetryInterval, startup: startup,
        logger: logger)
    notifications.concurrency = settings.notificationWorkers
    let reconciler = SubscriptionReconciler(
        reconciliations: components.reconciliations, apple: components.appleNotifications,
        google: components.googleNotifications, stripe: components.stripeEvents, transactions: components.transactions,
        projections: components.projections, settings: settings.reconciler, startup: startup, logger: logger)
    // Services stop in the reverse order: the HTTP client after every job that calls the stores or services with it.
    let services: [any Service] =
        [HTTPClientService(client: httpClient), worker, notifications, reconciler]
        + googleServices(settings: settings, components: components, startup: startup, logger: logger)
        + [
            components.notificationRecoveryJob(settings: settings, database: database, startup: startup, logger: logger)
        ]
        + ServiceApplication.databaseGauges(
            VerifierMetrics.backlogGauges, settings: settings.service, database: database, startup: startup,
            logger: logger)
    return ServiceApplication.make(
        responder: router.buildResponder(),
        settings: settings.service,
        database: database,
        migrations: VerifierMigrations.runner,
        services: services,
        startup: startup,
        logger: logger
    )
}

/// Google Play's background jobs: consuming granted consumables, and polling voided purchases.
func googleServices(
    settings: VerifierSettings, components: VerifierComponents, startup: StartupGate, logger: Logger
) -> [any Service] {
    let consumes = GoogleConsumeWorker(
        consumer: components.consumer, interval: settings.applyRetryInterval, startup: startup, logger: logger)
    let voided = VoidedPurchasesPoller(
        cursors: VoidedCursorPostgresRepository(client: components.database, logger: logger),
        credentials: components.credentials, client: components.googleClient,
        notifications: components.googleNotifications, interval: settings.googleVoidedPollInterval,
        startup: startup, logger: logger)
    return [consumes, voided]
}

/// The signed clients of the subscriptions and entitlements services' internal APIs.
func factProjections(settings: VerifierSettings, httpClient: HTTPClient) -> FactProjections {
    FactProjections(
        subscriptions: SubscriptionsClient(
            client: InternalClient(
                service: "subscriptions", baseURL: settings.subscriptionsURL, httpClient: httpClient,
                signature: settings.service.internalSignature, timeout: settings.applyTimeout)),
        entitlements: EntitlementsClient(
            client: InternalClient(
                service: "entitlements", baseURL: settings.entitlementsURL, httpClient: httpClient,
                signature: settings.service.internalSignature, timeout: settings.applyTimeout)))
}

/// Google's OAuth token endpoint, the only one a production service account may name.
let googleTokenURI = "https://oauth2.googleapis.com/token"

/// The verifier's routes and middleware.
func buildRouter(
    settings: VerifierSettings,
    database: PostgresClient,
    httpClient: HTTPClient,
    metrics: PrometheusCollectorRegistry,
    logger: Logger
) throws -> Router<ServiceRequestContext> {
    buildRouter(
        settings: settings,
        components: try VerifierComponents(
            settings: settings, database: database, httpClient: httpClient, logger: logger),
        database: database, metrics: metrics, logger: logger)
}

/// The verifier's routes and middleware, on components the background workers share.
func buildRouter(
    settings: VerifierSettings,
    components: VerifierComponents,
    database: PostgresClient,
    metrics: PrometheusCollectorRegistry,
    logger: Logger
) -> Router<ServiceRequestContext> {
    let router = ServiceApplication.makeRouter(
        settings: settings.service, database: database, migrations: VerifierMigrations.runner, metrics: metrics,
        logger: logger)
    router.addRoutes(
        PurchaseController(service: components.service, maxBodyBytes: settings.service.maxBodyBytes).endpoints)
    router.addRoutes(
        NotificationController(
            apple: components.appleNotifications, google: components.googleNotifications,
            stripe: components.stripeWebhook, stripeEvents: components.stripeEvents
        ).endpoints)
    router.addRoutes(
        StripeCheckoutController(
            checkout: StripeCheckout(
                client: components.stripeClient, credentials: components.credentials,
                catalog: StripeCatalog(client: database, logger: logger)),
            cancellation: StripeCancellation(
                client: components.stripeClient, credentials: components.credentials,
                projections: components.projections),
            portal: StripePortal(
                client: components.stripeClient, credentials: components.credentials,
                entitlements: components.projections.entitlements),
            maxBodyBytes: settings.service.maxBodyBytes
        ).endpoints)
    router.addRoutes(
        StoreCredentialsController(
            repository: components.credentials, maxBodyBytes: settings.service.maxBodyBytes,
            requiredGoogleTokenURI: settings.service.environment == .production ? googleTokenURI : nil,
            stripeLiveKeysAllowed: settings.endpoints.stripeLiveKeysAllowed
        ).endpoints,
        atPath: "/v1/admin/stores")
    router.addRoutes(
        OfferSignatureController(
            service: OfferSigningService(
                credentials: components.credentials, entitlements: components.projections.entitlements),
            maxBodyBytes: settings.service.maxBodyBytes
        ).endpoints)
    router.addRoutes(
        OrderLookupController(
            credentials: components.credentials, apple: components.service.apple, database: database
        ).endpoints,
        atPath: "/v1/admin/stores")
    router.addRoutes(
        StoreCatalogController(
            credentials: components.credentials, client: components.appStoreConnect, google: components.googleClient,
            database: database
        ).endpoints)
    components.addAppStoreSupportRoutes(to: router, settings: settings, database: database, logger: logger)
    router.addRoutes(
        VerificationAttemptController(
            attempts: VerificationAttemptPostgresRepository(client: database, logger: logger)
        ).endpoints,
        atPath: "/v1/admin/verification-attempts")
    return router
}

/// The verifier's parts, made once: the request handlers and the background workers share them.
struct VerifierComponents: Sendable {
    let credentials: CachedCredentialsRepository
    let transactions: TransactionPostgresRepository
    let projections: FactProjections
    let service: PurchaseService
    let inbox: NotificationPostgresInbox
    let reconciliations: ReconciliationPostgresRepository
    let appleNotifications: AppleNotifications
    let googleNotifications: GoogleNotifications
    let database: PostgresClient
    let googleClient: GooglePlayClient
    /// Stripe's API, with each app's secret key.
    let stripeClient: StripeClient
    /// Stripe's webhook: checked and recorded, then processed by ``stripeEvents``.
    let stripeWebhook: StripeWebhook
    let stripeEvents: StripeEventProcessor
    /// Consumes granted Play consumables, for apps that ask for it.
    let consumer: GoogleConsumer
    /// App Store Connect's API: the store's catalog, for the catalog sync.
    let appStoreConnect: AppStoreConnectClient

    init(settings: VerifierSettings, database: PostgresClient, httpClient: HTTPClient, logger: Logger) throws {
        credentials = CachedCredentialsRepository(
            CredentialsPostgresRepository(
                client: database, box: SecretBox(masterKey: settings.masterKey, purpose: "store credentials"),
                logger: logger),
            ttl: .seconds(2))
        transactions = TransactionPostgresRepository(
            client: database, logger: logger, applyGrace: settings.applyRetryInterval)
        projections = factProjections(settings: settings, httpClient: httpClient)
        let http = StoreHTTP(client: httpClient, timeout: settings.storeTimeout)
        let retry = RetryPolicy(attempts: settings.storeAttempts, base: settings.retryBase)
        let tokens = BearerTokenCache()
        let signedData = try AppleSignedDataVerifier(trustedRoots: settings.appleRoots)
        let apple = AppleProofVerifier(
            signedData: signedData,
            receiptReader: AppReceiptReader(trustedRoots: settings.appleRoots),
            receipts: AppleReceiptClient(
                http: http, productionURL: settings.endpoints.appleProductionReceipts,
                sandboxURL: settings.endpoints.appleSandboxReceipts, retry: retry),
            api: AppStoreServerAPIClient(
                http: http, productionURL: settings.endpoints.appleProductionAPI,
                sandboxURL: settings.endpoints.appleSandboxAPI, retry: retry, tokens: tokens),
            allowLocalEnvironments: settings.allowLocalAppleEnvironments
        )
        self.database = database
        googleClient = GooglePlayClient(http: http, apiURL: settings.endpoints.googleAPI, retry: retry, tokens: tokens)
        let google = GoogleProofVerifier(client: googleClient)
        stripeClient = StripeClient(http: http, apiURL: settings.endpoints.stripeAPI, retry: retry)
        appStoreConnect = AppStoreConnectClient(
            http: http, baseURL: settings.endpoints.appStoreConnect, retry: retry, tokens: tokens)
        consumer = GoogleConsumer(
            consumptions: GoogleConsumptionPostgresRepository(client: database, logger: logger),
            credentials: credentials, client: googleClient, base: settings.applyRetryInterval, logger: logger)
        service = PurchaseService(
            credentials: credentials,
            transactions: MeasuredTransactionRepository(transactions),
            apple: apple,
            google: google,
            projections: projections,
            logger: logger,
            consumer: consumer
        )
        inbox = NotificationPostgresInbox(client: database, logger: logger)
        reconciliations = ReconciliationPostgresRepository(client: database, logger: logger)
        let apps = NotificationApps(client: database, logger: logger)
        appleNotifications = AppleNotifications(
            signedData: signedData, verifier: apple, credentials: credentials, apps: apps, inbox: inbox)
        googleNotifications = GoogleNotifications(
            google: google, credentials: credentials, transactions: transactions, apps: apps, inbox: inbox,
            pushTokens: settings.googlePushTokens)
        stripeWebhook = StripeWebhook(credentials: credentials, apps: apps, inbox: inbox)
        stripeEvents = StripeEventProcessor(
            events: StripeEvents(client: stripeClient, transactions: transactions), credentials: credentials,
            transactions: transactions, projections: projections, inbox: inbox,
            retryBase: settings.notificationRetryInterval, logger: logger)
    }
}
