import Foundation
import ShopkeeperCore
import ShopkeeperHTTP

/// The gateway's settings: the common ones plus
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_PORT` | `8080` | |
/// | `SHOPKEEPER_OPERATOR_KEY` | unset (operator API off) | bearer key of the operator API, 24+ characters |
/// | `SHOPKEEPER_MASTER_KEY` | a development value | seals customer token secrets at rest (32+ characters; required in production); the same variable the verifier seals store credentials with |
/// | `SHOPKEEPER_CATALOG_URL` | `http://127.0.0.1:8081` | the catalog service |
/// | `SHOPKEEPER_VERIFIER_URL` | `http://127.0.0.1:8082` | the verifier service |
/// | `SHOPKEEPER_ENTITLEMENTS_URL` | `http://127.0.0.1:8083` | the entitlements service |
/// | `SHOPKEEPER_CONTENT_URL` | unset (no content routes) | the content service (`http://127.0.0.1:8085` locally): `/v1/content`, `/v1/downloads`, `/v1/admin/content`, `/v1/customers/*/content` and `/v1/admin/reports/content` go there |
/// | `SHOPKEEPER_SUBSCRIPTIONS_URL` | unset (no subscriptions report) | the subscriptions service (`http://127.0.0.1:8084` locally): `/v1/admin/reports/subscriptions` goes there |
/// | `SHOPKEEPER_GATEWAY_ROUTES` | built from the service URLs | routing table override: `prefix=service@url,...` |
/// | `SHOPKEEPER_GATEWAY_KEYLESS_PREFIXES` | `/v1/notifications,/v1/downloads` | comma-separated route prefixes forwarded without an API key (the caller proves itself another way: a store's signature, a signed URL); each must be a prefix of the routing table. The service gets the request signed with no app identity (anonymous), client-sent `x-shopkeeper-*` headers removed, the body streamed; nothing is rate limited or cached |
/// | `SHOPKEEPER_GATEWAY_BODY_LIMITS` | `/v1/admin/content=68719476736` | comma-separated `prefix=bytes`: prefixes whose request bodies (streamed) may be larger than `SHOPKEEPER_MAX_BODY_BYTES`; each must be a prefix of the routing table |
/// | `SHOPKEEPER_RATE_LIMIT_PUBLIC` | `1000/2000` | requests per second / burst for each public key, all its clients together (the app-wide ceiling), for the whole deployment (see `SHOPKEEPER_GATEWAY_REPLICAS`) |
/// | `SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT` | `20/40` | the same for each customer a path names (`/v1/customers/{app_user_id}/...`) behind one client address of a public key; at most the address's limit |
/// | `SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS` | `500/1000` (raised to the client limit, capped at the ceiling) | the same for each client address of a public key, all its customers together: each IPv4 address, each IPv6 /64 (``ClientAddressResolver``). Phones behind carrier NAT share one address; at most the ceiling |
/// | `SHOPKEEPER_RATE_LIMIT_SECRET` | `100/200` | requests per second / burst for each secret key |
/// | `SHOPKEEPER_GATEWAY_REPLICAS` | `1` | how many gateway replicas share the rate limits above and the console's sign-in limit: each replica enforces the configured rate and burst divided by it, so the replicas together never admit more than configured (a client whose requests all reach one replica gets 1/N of its limit). Set it to the number of replicas behind the load balancer (with an autoscaler, its maximum keeps the limits; its minimum keeps the clients' full share at the minimum) |
/// | `SHOPKEEPER_RATE_LIMIT_CLIENTS_MAX` | `100000` | most per-client buckets kept in memory (about 100 bytes each); past it, new clients are held to the ceiling alone |
/// | `SHOPKEEPER_GATEWAY_TRUSTED_PROXIES` | none | comma-separated addresses or CIDR blocks (`10.0.0.0/8,::1`) of the load balancers in front of the gateway: from them, the client is read from `X-Forwarded-For` |
/// | `SHOPKEEPER_GATEWAY_METRICS_HOST` | `127.0.0.1` | address of the `/metrics` listener (`0.0.0.0` to let a scraper inside the network reach it; never publish it) |
/// | `SHOPKEEPER_GATEWAY_METRICS_PORT` | `9080` | port of the `/metrics` listener; the public port answers `/metrics` with 404 |
/// | `SHOPKEEPER_CORS_ORIGINS` | none | comma-separated browser origins allowed to call the API |
/// | `SHOPKEEPER_UPSTREAM_CONNECT_TIMEOUT_MS` | `2000` | connecting to a service |
/// | `SHOPKEEPER_UPSTREAM_READ_TIMEOUT_MS` | `30000` | longest silence while waiting for a service's bytes |
/// | `SHOPKEEPER_KEY_CACHE_SECONDS` | `5` | how long a key lookup is remembered (a revocation takes this long everywhere) |
/// | `SHOPKEEPER_CONSOLE_*` | | the console's folder and sessions: see ``ConsoleSettings`` |
/// | `SHOPKEEPER_GATEWAY_STORED_READS` | `4` | database connections for answering `GET /v1/customers/{app_user_id}` from the info the entitlements service stored, without calling it (``StoredCustomerReads``), spread over the event loops (one per core; a loop without one sends its reads to the service); `0` sends every such read to the service |
/// | `SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS` | `0` (off) | the scheduled catalog sync (``CatalogSyncSchedule``): every app with store credentials is synced with each store this often (60-604800), applying review states and prices only; one replica runs each app's sync per interval |
/// | `SHOPKEEPER_CONTENT_DIR` | unset | the content service's storage volume, when the gateway can read it too (the same directory or mount): downloads are then sent from it with `sendfile(2)` by the gateway, which reports each one back to the content service; unset, the content service streams them through the gateway. Must be an existing directory, with content routes configured |
struct GatewaySettings: Sendable {
    var service: ServiceSettings
    var operatorKey: String?
    /// Seals customer token secrets (``GatewaySecretBox``).
    var masterKey: String
    var routes: [UpstreamRoute]
    /// Prefixes of ``routes`` forwarded without an API key.
    var keylessPrefixes: Set<String>
    /// Body limits of prefixes of ``routes`` that take more than the service's `maxBodyBytes`.
    var bodyLimits: [String: Int]
    /// This replica's share of the configured rate limits (``RateLimits/share(ofReplicas:)``).
    var rateLimits: RateLimits
    /// How many gateway replicas share the rate limits (`SHOPKEEPER_GATEWAY_REPLICAS`).
    var replicas: Int
    /// The most per-client buckets kept (``TokenBucketRateLimiter``).
    var maximumRateLimitClients: Int
    /// Load balancers whose `X-Forwarded-For` names the client (``ClientAddressResolver``).
    var trustedProxies: [IPNetwork]
    /// Where `/metrics` is served (``MetricsListener``); never the public port.
    var metricsHost: String
    var metricsPort: Int
    var corsOrigins: Set<String>
    var connectTimeout: Duration
    var readTimeout: Duration
    var keyCacheTTL: Duration
    /// The content volume, when this gateway sends downloads from it (``FileDelivery``).
    var contentDirectory: String?
    /// The console's static files and sessions.
    var console: ConsoleSettings
    /// Database connections for stored customer reads (``StoredCustomerReads``); 0: none.
    var storedReadConnections: Int
    /// How often the scheduled catalog sync runs for each app (``CatalogSyncSchedule``); `nil`: never (the default).
    var catalogSyncInterval: Duration? = nil

    static func read(from environment: EnvironmentReader = EnvironmentReader()) throws(ConfigurationError)
        -> GatewaySettings
    {
        let service = try ServiceSettings.read(service: "gateway", defaultPort: 8080, from: environment)
        let operatorKey = environment.raw("SHOPKEEPER_OPERATOR_KEY")
        if let operatorKey, operatorKey.count < 24 {
            throw ConfigurationError(variable: "SHOPKEEPER_OPERATOR_KEY", reason: "must be at least 24 characters long")
        }
        let routes: [UpstreamRoute]
        if let table = environment.raw("SHOPKEEPER_GATEWAY_ROUTES") {
            routes = try UpstreamRoute.parse(table, variable: "SHOPKEEPER_GATEWAY_ROUTES")
        } else {
            routes = UpstreamRoute.defaults(
                catalogURL: try environment.httpURL("SHOPKEEPER_CATALOG_URL", default: "http://127.0.0.1:8081"),
                verifierURL: try environment.httpURL("SHOPKEEPER_VERIFIER_URL", default: "http://127.0.0.1:8082"),
                entitlementsURL: try environment.httpURL(
                    "SHOPKEEPER_ENTITLEMENTS_URL", default: "http://127.0.0.1:8083"),
                // Content routes (and their readiness check) exist once the content service is configured.
                contentURL: try environment.raw("SHOPKEEPER_CONTENT_URL").map { url throws(ConfigurationError) in
                    try EnvironmentReader.parseHTTPURL(url, variable: "SHOPKEEPER_CONTENT_URL")
                },
                // The subscriptions report's route (and its readiness check) exist once the service is configured.
                subscriptionsURL: try environment.raw("SHOPKEEPER_SUBSCRIPTIONS_URL").map {
                    url throws(ConfigurationError) in
                    try EnvironmentReader.parseHTTPURL(url, variable: "SHOPKEEPER_SUBSCRIPTIONS_URL")
                }
            )
        }
        for route in routes where route.baseURL.scheme?.lowercased() != "http" {
            throw ConfigurationError(
                variable: environment.raw("SHOPKEEPER_GATEWAY_ROUTES") == nil
                    ? "SHOPKEEPER_\(route.service.uppercased())_URL" : "SHOPKEEPER_GATEWAY_ROUTES",
                reason: "services are reached over plain http inside the network, got '\(route.baseURL.absoluteString)'"
            )
        }
        let configuredKeyless = environment.raw("SHOPKEEPER_GATEWAY_KEYLESS_PREFIXES")
        var keyless = Set(
            (configuredKeyless ?? UpstreamRoute.defaultKeylessPrefixes)
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        if configuredKeyless == nil {
            // The defaults apply to the routes the table has.
            keyless = keyless.filter { prefix in routes.contains { $0.prefix == prefix } }
        }
        for prefix in keyless where !routes.contains(where: { $0.prefix == prefix && !$0.hasWildcard }) {
            throw ConfigurationError(
                variable: "SHOPKEEPER_GATEWAY_KEYLESS_PREFIXES",
                reason: "'\(prefix)' is not a prefix of the routing table (without '*')")
        }
        let bodyLimits = try Self.bodyLimits(environment, routes: routes)
        let replicas = try environment.int("SHOPKEEPER_GATEWAY_REPLICAS", default: 1, in: 1...1000)
        let limits = try rateLimits(environment).share(ofReplicas: replicas)
        var console = try ConsoleSettings.read(environment)
        console.signInLimit = try console.signInLimit.share(
            ofReplicas: replicas, variable: "SHOPKEEPER_CONSOLE_SIGN_IN_RATE")
        let origins = (environment.raw("SHOPKEEPER_CORS_ORIGINS") ?? "")
            .split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        for origin in origins where URL(string: origin)?.host == nil || origin.hasSuffix("/") {
            throw ConfigurationError(
                variable: "SHOPKEEPER_CORS_ORIGINS",
                reason: "entries must be origins such as https://shop.example.com (no path), got '\(origin)'"
            )
        }
        return GatewaySettings(
            service: service,
            operatorKey: operatorKey,
            masterKey: try environment.secret(
                "SHOPKEEPER_MASTER_KEY", developmentDefault: developmentMasterKey, environment: service.environment),
            routes: routes,
            keylessPrefixes: keyless,
            bodyLimits: bodyLimits,
            rateLimits: limits,
            replicas: replicas,
            maximumRateLimitClients: try environment.int(
                "SHOPKEEPER_RATE_LIMIT_CLIENTS_MAX", default: 100_000, in: 1000...10_000_000),
            trustedProxies: try trustedProxies(environment),
            metricsHost: environment.string("SHOPKEEPER_GATEWAY_METRICS_HOST", default: "127.0.0.1"),
            metricsPort: try metricsPort(environment, servicePort: service.port),
            corsOrigins: Set(origins),
            connectTimeout: .milliseconds(
                try environment.int("SHOPKEEPER_UPSTREAM_CONNECT_TIMEOUT_MS", default: 2000, in: 10...60_000)),
            readTimeout: .milliseconds(
                try environment.int("SHOPKEEPER_UPSTREAM_READ_TIMEOUT_MS", default: 30_000, in: 10...600_000)),
            keyCacheTTL: .seconds(try environment.int("SHOPKEEPER_KEY_CACHE_SECONDS", default: 5, in: 0...300)),
            contentDirectory: try contentDirectory(environment, routes: routes),
            console: console,
            storedReadConnections: try environment.int("SHOPKEEPER_GATEWAY_STORED_READS", default: 4, in: 0...64),
            catalogSyncInterval: try catalogSyncInterval(environment)
        )
    }

    /// Reads `SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS`: `0` (the default) is off; otherwise a minute to a week.
    private static func catalogSyncInterval(_ environment: EnvironmentReader) throws(ConfigurationError) -> Duration? {
        let name = "SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS"
        let seconds = try environment.int(name, default: 0, in: 0...604_800)
        guard seconds > 0 else { return nil }
        guard seconds >= 60 else {
            throw ConfigurationError(
                variable: name, reason: "must be 0 (off) or at least 60: each sync reads the stores' whole catalogs")
        }
        return .seconds(seconds)
    }

    /// The master key of development and tests (the verifier's too), refused in production.
    static let developmentMasterKey = "shopkeeper-development-master-key-not-for-production"

    /// The service whose downloads the gateway can send from the content volume.
    static let contentService = "content"
    /// The service that owns customers and their ids (the customer boundary switch calls it).
    static let entitlementsService = "entitlements"
    /// The service that owns the products (the catalog sync applies there).
    static let catalogService = "catalog"
    /// The service that holds the store credentials (the catalog sync reads the store through it).
    static let verifierService = "verifier"

    /// Reads `SHOPKEEPER_CONTENT_DIR`: an existing directory, and only with content routes to use it.
    private static func contentDirectory(_ environment: EnvironmentReader, routes: [UpstreamRoute])
        throws(ConfigurationError) -> String?
    {
        let name = "SHOPKEEPER_CONTENT_DIR"
        guard let directory = environment.raw(name) else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ConfigurationError(
                variable: name, reason: "'\(directory)' is not a directory (it must be the content service's volume)")
        }
        guard routes.contains(where: { $0.service == contentService }) else {
            throw ConfigurationError(
                variable: name, reason: "there are no content routes: set SHOPKEEPER_CONTENT_URL as well")
        }
        return directory
    }

    /// Parses `SHOPKEEPER_GATEWAY_BODY_LIMITS` (`prefix=bytes,...`); the defaults apply to the routes the table has.
    private static func bodyLimits(_ environment: EnvironmentReader, routes: [UpstreamRoute]) throws(ConfigurationError)
        -> [String: Int]
    {
        let name = "SHOPKEEPER_GATEWAY_BODY_LIMITS"
        let configured = environment.raw(name)
        var limits: [String: Int] = [:]
        for entry in (configured ?? UpstreamRoute.defaultBodyLimits).split(separator: ",") {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let bytes = Int(parts[1]), bytes >= 1024 else {
                throw ConfigurationError(variable: name, reason: "entries must look like /v1/admin/content=1073741824")
            }
            guard routes.contains(where: { $0.prefix == parts[0] }) else {
                if configured == nil { continue }
                throw ConfigurationError(variable: name, reason: "'\(parts[0])' is not a prefix of the routing table")
            }
            limits[parts[0]] = bytes
        }
        return limits
    }

    /// The default limit of one client address of a public key, before it is raised to the per-customer limit and
    /// capped at the key's ceiling: a carrier NAT address with a few hundred phones opening the app at once.
    static let defaultAddressLimit = RateLimit(perSecond: 500, burst: 1000)

    /// Reads the four rate limits: a customer behind an address may not be allowed more than the address, nor an
    /// address more than the key's ceiling.
    private static func rateLimits(_ environment: EnvironmentReader) throws(ConfigurationError) -> RateLimits {
        let ceiling = try rateLimit(
            "SHOPKEEPER_RATE_LIMIT_PUBLIC", default: RateLimit(perSecond: 1000, burst: 2000), environment)
        let client = try rateLimit(
            "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT", default: RateLimit(perSecond: 20, burst: 40), environment)
        let address = try rateLimit(
            "SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS",
            default: RateLimit(
                perSecond: min(ceiling.perSecond, max(client.perSecond, defaultAddressLimit.perSecond)),
                burst: min(ceiling.burst, max(client.burst, defaultAddressLimit.burst))),
            environment)
        let limits = RateLimits(
            publicKeys: ceiling, publicClients: client, publicAddresses: address,
            secretKeys: try rateLimit(
                "SHOPKEEPER_RATE_LIMIT_SECRET", default: RateLimit(perSecond: 100, burst: 200), environment)
        )
        guard client.perSecond <= address.perSecond, client.burst <= address.burst else {
            throw ConfigurationError(
                variable: "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT",
                reason: "a customer's limit cannot exceed its address's (SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS)")
        }
        guard address.perSecond <= ceiling.perSecond, address.burst <= ceiling.burst else {
            throw ConfigurationError(
                variable: "SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS",
                reason: "an address's limit cannot exceed the key's ceiling (SHOPKEEPER_RATE_LIMIT_PUBLIC)")
        }
        return limits
    }

    /// Parses `SHOPKEEPER_GATEWAY_TRUSTED_PROXIES`: addresses and CIDR blocks, comma-separated.
    private static func trustedProxies(_ environment: EnvironmentReader) throws(ConfigurationError) -> [IPNetwork] {
        let name = "SHOPKEEPER_GATEWAY_TRUSTED_PROXIES"
        var networks: [IPNetwork] = []
        for entry in (environment.raw(name) ?? "").split(separator: ",") {
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            guard let network = IPNetwork(text) else {
                throw ConfigurationError(
                    variable: name, reason: "entries must be addresses or CIDR blocks such as 10.0.0.0/8, got '\(text)'"
                )
            }
            networks.append(network)
        }
        return networks
    }

    /// Reads `SHOPKEEPER_GATEWAY_METRICS_PORT`, which must not be the public port.
    private static func metricsPort(_ environment: EnvironmentReader, servicePort: Int) throws(ConfigurationError)
        -> Int
    {
        let name = "SHOPKEEPER_GATEWAY_METRICS_PORT"
        let port = try environment.int(name, default: 9080, in: 0...65535)
        if port != 0 && port == servicePort {
            throw ConfigurationError(
                variable: name, reason: "must differ from SHOPKEEPER_PORT: the public port does not serve /metrics")
        }
        return port
    }

    /// Parses `rate/burst`, e.g. `50/100`.
    static func rateLimit(
        _ name: String,
        default defaultValue: RateLimit,
        _ environment: EnvironmentReader
    ) throws(ConfigurationError) -> RateLimit {
        guard let text = environment.raw(name) else { return defaultValue }
        let parts = text.split(separator: "/").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, parts[0] > 0, parts[1] >= 1 else {
            throw ConfigurationError(
                variable: name, reason: "must be 'rate/burst' in requests per second, e.g. 50/100, got '\(text)'")
        }
        return RateLimit(perSecond: parts[0], burst: parts[1])
    }
}
