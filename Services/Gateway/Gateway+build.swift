import AsyncHTTPClient
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import PostgresNIO
import Prometheus
import ServiceLifecycle
import ShopkeeperClients
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperStoredCustomerInfo

/// Builds the gateway application: the same function serves `main` and the tests (which may add `hooks`).
func buildApplication(
    settings: GatewaySettings,
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
    hooks: GatewayHooks = GatewayHooks()
) async throws -> some ApplicationProtocol {
    let logger = Logger(label: "gateway")
    let database = settings.service.database.makeClient(logger: logger)
    let httpClient = makeReadinessClient(settings: settings)
    let repository = AppPostgresRepository(
        client: database, box: GatewaySecretBox(masterKey: settings.masterKey), logger: logger)
    let shared = GatewayShared(repository: hooks.keyLookups(repository), settings: settings)
    hooks.built(shared)
    let pools = UpstreamPools(
        routes: settings.routes, connectTimeout: settings.connectTimeout, readTimeout: settings.readTimeout)
    let reporter = DownloadReporter(
        httpClient: httpClient, signature: settings.service.internalSignature, timeout: settings.readTimeout,
        logger: logger)
    let forwarder = Forwarder(
        pools: pools, cache: shared.cache, signature: settings.service.internalSignature,
        files: settings.contentDirectory.map { FileDelivery(root: $0, reporter: reporter) },
        propagatesTrace: settings.service.observability.isTracing, logger: logger)
    let routes = RouteTable(
        settings: settings, deliversFiles: settings.contentDirectory != nil,
        answersStoredReads: settings.storedReadConnections > 0)
    let console = ConsoleDependencies(
        sessions: ConsoleSessionPostgresRepository(client: database, logger: logger),
        auditLog: AuditLogPostgresRepository(client: database, logger: logger),
        users: ConsoleUserPostgresRepository(client: database, logger: logger),
        files: try ConsoleFileController.source(settings.console))
    let catalogSync = catalogSyncRunner(settings: settings, httpClient: httpClient)
    let router = buildRouter(
        settings: settings,
        repository: repository,
        answerKeys: repository,
        routes: routes,
        forwarder: forwarder,
        shared: shared,
        console: console,
        readiness: [.database(database, migrations: GatewayMigrations.runner, logger: logger)]
            + upstreamChecks(settings: settings, httpClient: httpClient),
        entitlements: entitlementsClient(settings: settings, httpClient: httpClient),
        catalogSync: catalogSync
    )
    // `/metrics` is not on the public port: it has a listener of its own, inside the network.
    let metricsListener = MetricsListener.make(
        host: settings.metricsHost, port: settings.metricsPort, registry: metrics, logger: logger,
        onListening: hooks.metricsListening)
    // App launches answered from the info the entitlements service stored; `last_seen` written in batches, four a
    // second: the gateway answers most launches, and smaller batches keep each update short.
    let lastSeen = LastSeenRecorder(
        client: database, resolution: LastSeenRecorder.defaultResolution, interval: .milliseconds(250), startup: nil,
        logger: logger)
    let storedReads = StoredCustomerReads(
        database: settings.service.database, connections: settings.storedReadConnections, lastSeen: lastSeen,
        observe: hooks.storedReads, logger: logger)
    // The scheduled catalog sync, when configured (off by default), once the schema is migrated.
    let startup = StartupGate()
    var scheduled: [any Service] = []
    if let interval = settings.catalogSyncInterval, let catalogSync {
        scheduled.append(
            CatalogSyncSchedule(
                turns: CatalogSyncTurnsPostgres(client: database, logger: logger), runner: catalogSync,
                interval: interval, startup: startup, logger: logger))
    }
    // Spans live in the router's middleware: with tracing on, every request takes the router path.
    let channelProxy = ChannelProxy(
        routes: routes, authenticator: shared.authenticator, rateLimiter: shared.rateLimiter,
        limits: settings.rateLimits, clients: shared.clients, forwarder: forwarder,
        corsEnabled: !settings.corsOrigins.isEmpty, leavesAllToRouter: settings.service.observability.isTracing,
        storedReads: settings.storedReadConnections > 0 ? storedReads : nil)
    return ServiceApplication.make(
        responder: router.buildResponder(),
        server: .http1(configuration: .init(additionalChannelHandlers: [ChannelProxyHandler(proxy: channelProxy)])),
        settings: settings.service,
        database: database,
        migrations: GatewayMigrations.runner,
        // Shut down in reverse: the pools and the stored reads' connections once the server has drained, then the
        // last `last_seen` batch, the reports of the last downloads, then the client that sends them; the metrics
        // listener last, so the final counts can still be scraped.
        services: [metricsListener, HTTPClientService(client: httpClient), reporter, lastSeen, pools, storedReads]
            + scheduled,
        startup: startup,
        logger: logger
    )
}

/// What the router and the connection pipeline share: remembered keys, the rate limiter's buckets, the rule that names a request's client,
/// and the micro-cache.
struct GatewayShared: Sendable {
    let authenticator: APIKeyAuthenticator
    let rateLimiter: TokenBucketRateLimiter
    let clients: ClientAddressResolver
    let cache = ResponseMicroCache()

    /// `repository` answers the authenticator's key lookups.
    init(repository: any AppRepository, settings: GatewaySettings) {
        authenticator = APIKeyAuthenticator(repository: repository, cacheTTL: settings.keyCacheTTL)
        rateLimiter = TokenBucketRateLimiter(maximumClients: settings.maximumRateLimitClients)
        clients = ClientAddressResolver(trustedProxies: settings.trustedProxies)
    }
}

/// What a test may add to ``buildApplication(settings:metrics:hooks:)``; `main` uses none of it.
struct GatewayHooks: Sendable {
    /// Wraps the repository that key lookups go through (a test counts them).
    var keyLookups: @Sendable (any AppRepository) -> any AppRepository = { $0 }
    /// Called once with what the router and the connection pipeline share (a test watches the authenticator).
    var built: @Sendable (GatewayShared) -> Void = { _ in }
    /// Called with the metrics listener's port once it listens (a test's is any free port).
    var metricsListening: @Sendable (Int) async -> Void = { _ in }
    /// Called for every customer info read taken up from the stored info: whether it answered it (``StoredCustomerReads``).
    var storedReads: @Sendable (_ answered: Bool) -> Void = { _ in }
}

/// What the console adds to the gateway: its sessions, the audit log of admin actions, and its static files.
struct ConsoleDependencies: Sendable {
    var sessions: any ConsoleSessionRepository
    var auditLog: any AuditLogRepository
    var users: any ConsoleUserRepository
    var files: ConsoleFileController.Source
}

/// The gateway's public routes, as `routes` lists them: what it answers itself (health probes, operator, the app's
/// own keys, the customer boundary, the audit log, the console) and the prefixes it forwards.
func buildRouter(
    settings: GatewaySettings,
    repository: any AppRepository,
    answerKeys: any AnswerSigningKeyRepository,
    routes: RouteTable,
    forwarder: Forwarder,
    shared: GatewayShared,
    console: ConsoleDependencies,
    readiness: [ReadinessCheck],
    entitlements: EntitlementsClient? = nil,
    catalogSync: CatalogSyncRunner? = nil
) -> Router<GatewayRequestContext> {
    let router = Router(context: GatewayRequestContext.self)
    ServiceTracing.addMiddleware(to: router, settings: settings.service.observability)
    // One fixed-type stack rather than four existential layers: this runs on every request.
    router.addMiddleware {
        RequestIDMiddleware()
        ConsoleHeadersMiddleware()
        ProblemMiddleware()
        NULCharacterMiddleware()
        AllowedOriginsCORSMiddleware(allowedOrigins: settings.corsOrigins)
        MethodNotAllowedMiddleware(routes: .shopkeeper)
        MetricsMiddleware()
    }
    // Probes only: `/metrics` is answered like any unknown path here (see ``MetricsListener``).
    ServiceApplication.addHealthRoutes(to: router, readiness: readiness)

    let authenticator = shared.authenticator
    let issuer = KeyIssuer(repository: repository, authenticator: authenticator)
    let boundaries = CustomerBoundaryAdmin(
        repository: repository, authenticator: authenticator, entitlements: entitlements)
    let maxBody = settings.service.maxBodyBytes
    let sessions = ConsoleSessions(
        repository: console.sessions, settings: settings.console,
        operatorFingerprint: settings.operatorKey.map {
            ConsoleSessionToken.operatorFingerprint($0, masterKey: settings.masterKey)
        })
    let team = ConsoleTeam(repository: console.users, settings: settings.console, masterKey: settings.masterKey)
    router.addRoutes(ConsoleFileController(source: console.files).endpoints)
    let signIns = ConsoleSessionController(
        sessions: sessions, apps: repository, auditLog: console.auditLog, authenticator: authenticator, team: team,
        rateLimiter: shared.rateLimiter,
        clients: shared.clients, operatorKey: settings.operatorKey, maxBodyBytes: maxBody)
    router.addRoutes(signIns.endpoints)
    router.addRoutes(ConsoleAccountController(signIns: signIns, team: team).endpoints)

    router.group(RouterPath(OwnRoute.operatorAPI.prefix + "/v1"))
        .add(middleware: OperatorAuthMiddleware(operatorKey: settings.operatorKey, sessions: sessions))
        .add(middleware: AuditMiddleware<GatewayRequestContext>(log: console.auditLog))
        .addRoutes(
            OperatorController(repository: repository, keys: issuer, boundaries: boundaries, maxBodyBytes: maxBody)
                .endpoints)

    let proxies = ProxyController(forwarder: forwarder, routes: routes)
    proxies.addKeylessRoutes(to: router)

    let api = router.group()
        .add(
            middleware: APIKeyMiddleware(
                authenticator: authenticator, sessions: sessions, rateLimiter: shared.rateLimiter,
                limits: settings.rateLimits, clients: shared.clients)
        )
        .group(context: AuthenticatedContext.self)
        .add(middleware: AuditMiddleware<AuthenticatedContext>(log: console.auditLog))
    api.addRoutes(
        AppKeyController(repository: repository, keys: issuer, maxBodyBytes: maxBody).endpoints,
        atPath: RouterPath(OwnRoute.appKeys.prefix))
    api.addRoutes(
        CustomerBoundaryController(admin: boundaries, maxBodyBytes: maxBody).endpoints,
        atPath: RouterPath(OwnRoute.customerBoundary.prefix))
    api.addRoutes(AuditLogController(log: console.auditLog).endpoints, atPath: RouterPath(OwnRoute.auditLog.prefix))
    api.addRoutes(
        ConsoleUserController(team: team, maxBodyBytes: maxBody).endpoints,
        atPath: RouterPath(OwnRoute.consoleUsers.prefix))
    api.addRoutes(
        AnswerSigningController(admin: AnswerSigningAdmin(repository: answerKeys, authenticator: authenticator))
            .endpoints,
        atPath: RouterPath(OwnRoute.answerSigning.prefix))
    if let catalogSync {
        api.addRoutes(
            CatalogSyncController(runner: catalogSync, maxBodyBytes: maxBody).endpoints,
            atPath: RouterPath(OwnRoute.catalogSync.prefix))
    }

    proxies.addRoutes(to: api)
    return router
}

/// The signed client of the entitlements service's internal API (the customer boundary switch suspends its public-key
/// links), when a route goes to that service.
func entitlementsClient(settings: GatewaySettings, httpClient: HTTPClient) -> EntitlementsClient? {
    guard let route = settings.routes.first(where: { $0.service == GatewaySettings.entitlementsService }) else {
        return nil
    }
    return EntitlementsClient(
        client: InternalClient(
            service: route.service, baseURL: route.baseURL, httpClient: httpClient,
            signature: settings.service.internalSignature, timeout: settings.readTimeout, maxResponseBytes: 64 << 10))
}

/// The client of the readiness checks and download reports (requests the gateway forwards go through its
/// ``UpstreamPools``); shut down after the server has drained.
func makeReadinessClient(settings: GatewaySettings) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .init(
        connect: .milliseconds(settings.connectTimeout.milliseconds),
        read: .milliseconds(settings.readTimeout.milliseconds)
    )
    configuration.redirectConfiguration = .disallow
    configuration.decompression = .disabled
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}

/// One readiness check per upstream service: its own `/health/ready` answers 200.
func upstreamChecks(settings: GatewaySettings, httpClient: HTTPClient) -> [ReadinessCheck] {
    var seen: Set<String> = []
    return settings.routes.compactMap { route in
        guard seen.insert(route.service).inserted else { return nil }
        return ReadinessCheck(name: route.service) {
            var request = HTTPClientRequest(url: route.baseURL.absoluteString + "/health/ready")
            request.method = .GET
            let response = try await httpClient.execute(request, timeout: .seconds(2))
            _ = try await response.body.collect(upTo: 64 * 1024)
            guard response.status == .ok else { throw ReadinessFailure("status \(response.status.code)") }
        }
    }
}
