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
    let store = try SandboxStore(directory: directory, timeScale: settings.timeScale)
    let httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
    let notifier = AppleNotifier(
        url: settings.appleNotificationURL, signer: try AppleSigner(chain: chain), client: httpClient, logger: logger)
    let router = try buildRouter(
        settings: settings, store: store, chain: chain, traffic: StoreTraffic(), notifier: notifier, metrics: metrics)
    var services: [any Service] = [HTTPClientService(client: httpClient)]
    if settings.autoRenew {
        services.append(RenewalTicker(store: store, notifier: notifier, interval: .seconds(1), logger: logger))
    }
    logger.info(
        "sandbox store ready",
        metadata: ["state_dir": "\(settings.stateDirectory.path)", "port": "\(settings.service.port)"])
    return ServiceApplication.makeStandalone(
        responder: router.buildResponder(), settings: settings.service, services: services, logger: logger)
}

/// The sandbox store's routes: `/sandbox` controls (problem+json errors), two Apple hosts (App Store Server API and
/// legacy `verifyReceipt`), Google's token endpoint
/// and Play Developer API (each with its store's own error format), health and metrics.
func buildRouter(
    settings: SandboxStoreSettings,
    store: SandboxStore,
    chain: SigningChain,
    traffic: StoreTraffic,
    notifier: AppleNotifier,
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
        AppleControlController(store: store, signer: signer, notifier: notifier, maxBodyBytes: maxBody).endpoints,
        atPath: "apple")
    controls.addRoutes(
        AppleSubscriptionController(store: store, notifier: notifier, maxBodyBytes: maxBody).endpoints,
        atPath: "apple/subscriptions")
    controls.addRoutes(
        NotificationControlController(notifier: notifier, maxBodyBytes: maxBody).endpoints, atPath: "notifications")
    controls.addRoutes(
        GoogleControlController(store: store, publicURL: settings.publicURL, maxBodyBytes: maxBody).endpoints,
        atPath: "google")

    for host in AppleHost.allCases {
        router.addRoutes(
            AppStoreServerAPIController(host: host, store: store, signer: signer, traffic: traffic).endpoints,
            atPath: RouterPath(stringLiteral: host.mountPath))
        router.addRoutes(
            VerifyReceiptController(
                host: host, store: store, traffic: traffic, root: chain.root, maxBodyBytes: maxBody
            ).endpoints,
            atPath: RouterPath(stringLiteral: host.mountPath))
    }
    router.addRoutes(GoogleOAuthController(store: store, traffic: traffic).endpoints, atPath: "/google")
    router.addRoutes(
        PlayDeveloperAPIController(store: store, traffic: traffic).endpoints,
        atPath: "/google/androidpublisher/v3/applications")
    return router
}
