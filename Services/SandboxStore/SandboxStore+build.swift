import AsyncHTTPClient
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle
import ShopkeeperHTTP
import ShopkeeperStores

/// Builds the sandbox store: the same function serves `main` and the tests.
///
/// The signing PKI and the state come from `settings.stateDirectory` (made on first use), so two instances started
/// one after the other on the same directory are the same store.
func buildApplication(
    settings: SandboxStoreSettings,
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let logger = Logger(label: "sandbox-store")
    let directory = StateDirectory(url: settings.stateDirectory)
    let chain = try directory.loadOrCreateSigningChain()
    let store = try SandboxStore(
        directory: directory, timeScale: settings.timeScale, fsyncEachChange: settings.fsyncEachChange)
    let httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
    let dispatcher = try NotificationDispatcher(
        appleURL: settings.appleNotificationURL, googleURL: settings.googleNotificationURL,
        googleAudience: settings.googlePushAudience, appleSigner: try AppleSigner(chain: chain),
        googleSigner: try GooglePushSigner(
            key: try directory.loadOrCreateGooglePushKey(), email: settings.googlePushEmail),
        client: httpClient, attempts: settings.notificationAttempts, retryDelay: settings.notificationRetryDelay,
        journal: StateJournal(notificationsIn: directory, fsyncEachChange: settings.fsyncEachChange), logger: logger,
        stripeURL: settings.stripeWebhookURL, stripeSecrets: settings.stripeWebhookSecrets)
    try directory.writeGooglePushKeySet(dispatcher.googleKeySet)
    let products = try SandboxProducts(file: settings.stateDirectory.appendingPathComponent("products.json"))
    let router = try buildRouter(
        settings: settings, store: store, products: products, playCatalog: try PlayCatalog(directory: directory),
        chain: chain, traffic: StoreTraffic(), dispatcher: dispatcher, metrics: metrics)
    // Shutdown runs backwards: the clock stops first, then deliveries, then the HTTP client.
    var services: [any Service] = [HTTPClientService(client: httpClient), dispatcher]
    if settings.autoRenew {
        services.append(
            SubscriptionClock(store: store, dispatcher: dispatcher, interval: settings.tick, logger: logger))
    }
    logger.info(
        "sandbox store ready",
        metadata: [
            "state_dir": "\(settings.stateDirectory.path)", "port": "\(settings.service.port)",
            "time_scale": "\(settings.timeScale)",
        ])
    return ServiceApplication.makeStandalone(
        responder: router.buildResponder(), settings: settings.service, services: services, logger: logger)
}

/// The sandbox store's routes: `/sandbox` controls (problem+json errors), two Apple hosts (App Store Server API and
/// legacy `verifyReceipt`), App Store Connect, Google's token endpoint
/// and Android Publisher API (purchases and monetization), Stripe's API and hosted pages (each with its store's own error format), health and metrics.
func buildRouter(
    settings: SandboxStoreSettings,
    store: SandboxStore,
    products: SandboxProducts,
    playCatalog: PlayCatalog,
    chain: SigningChain,
    traffic: StoreTraffic,
    dispatcher: NotificationDispatcher,
    metrics: PrometheusCollectorRegistry
) throws -> Router<ServiceRequestContext> {
    let router = Router(context: ServiceRequestContext.self)
    router.addMiddleware {
        RequestIDMiddleware()
        MetricsMiddleware()
    }
    ServiceApplication.addOperationalRoutes(to: router, readiness: [], metrics: metrics)
    let signer = try AppleSigner(chain: chain)
    let maxBody = settings.service.maxBodyBytes

    let controls = router.group("sandbox").add(middleware: ProblemMiddleware())
    controls.addRoutes(
        SandboxControlController(
            rootPEM: try chain.root.serializeAsPEM().pemString + "\n", traffic: traffic, maxBodyBytes: maxBody
        )
        .endpoints)
    controls.addRoutes(
        AppleControlController(
            store: store, products: products, signer: signer, dispatcher: dispatcher, maxBodyBytes: maxBody
        ).endpoints,
        atPath: "apple")
    controls.addRoutes(AppleProductsController(products: products, maxBodyBytes: maxBody).endpoints, atPath: "apple")
    controls.addRoutes(
        AppleSubscriptionController(store: store, dispatcher: dispatcher, maxBodyBytes: maxBody).endpoints,
        atPath: "apple")
    controls.addRoutes(
        GoogleControlController(
            store: store, publicURL: settings.publicURL, dispatcher: dispatcher, maxBodyBytes: maxBody
        ).endpoints,
        atPath: "google")
    controls.addRoutes(
        GoogleSubscriptionController(store: store, dispatcher: dispatcher, maxBodyBytes: maxBody).endpoints,
        atPath: "google")
    controls.addRoutes(
        GoogleProductsController(catalog: playCatalog, maxBodyBytes: maxBody).endpoints, atPath: "google")
    controls.addRoutes(
        StripeControlController(store: store, dispatcher: dispatcher, maxBodyBytes: maxBody).endpoints,
        atPath: "stripe")
    controls.addRoutes(
        NotificationControlController(store: store, dispatcher: dispatcher, maxBodyBytes: maxBody).endpoints,
        atPath: "notifications")

    for host in AppleHost.allCases {
        router.addRoutes(
            AppStoreServerAPIController(host: host, store: store, signer: signer, traffic: traffic).endpoints,
            atPath: RouterPath(stringLiteral: host.mountPath))
        let support = AppStoreSupportAPIController(
            host: host, store: store, signer: signer, traffic: traffic, dispatcher: dispatcher)
        router.addRoutes(support.endpoints, atPath: RouterPath(stringLiteral: host.mountPath))
        router.addRoutes(support.managementEndpoints, atPath: RouterPath(stringLiteral: host.mountPath))
        router.addRoutes(
            VerifyReceiptController(
                host: host, store: store, traffic: traffic, root: chain.root, maxBodyBytes: maxBody
            ).endpoints,
            atPath: RouterPath(stringLiteral: host.mountPath))
    }
    router.addRoutes(
        AppStoreConnectAPIController(store: store, products: products, publicURL: settings.publicURL).endpoints,
        atPath: "/appstoreconnect")
    router.addRoutes(GoogleOAuthController(store: store, traffic: traffic).endpoints, atPath: "/google")
    router.addRoutes(GooglePushKeysController(keySet: dispatcher.googleKeySet).endpoints, atPath: "/google")
    router.addRoutes(
        PlayDeveloperAPIController(store: store, traffic: traffic).endpoints,
        atPath: "/google/androidpublisher/v3/applications")
    router.addRoutes(
        PlayMonetizationAPIController(
            access: PlayAccessCheck(store: store, traffic: traffic), catalog: playCatalog
        ).endpoints,
        atPath: "/google/androidpublisher/v3/applications")
    router.addRoutes(
        StripeAPIController(
            store: store, dispatcher: dispatcher, traffic: traffic, secretKey: settings.stripeSecretKey,
            publicURL: settings.publicURL,
            maxBodyBytes: maxBody
        ).endpoints,
        atPath: "/stripe/v1")
    router.addRoutes(
        StripeHostedPages(store: store, dispatcher: dispatcher, maxBodyBytes: maxBody).endpoints, atPath: "/stripe")
    return router
}
