import Foundation
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperReports

/// The entitlements service's settings: the common ones plus
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_PORT` | `8083` | |
/// | `SHOPKEEPER_CUSTOMER_CACHE_MS` | `1000` | longest time a replica keeps a rendered customer info between changes (changes drop it at once); `0` turns the cache off |
/// | `SHOPKEEPER_CUSTOMER_CACHE_ENTRIES` | `50000` | most customer infos kept per replica |
/// | `SHOPKEEPER_CUSTOMER_GATEWAY_CACHE_MS` | `250` | how long a gateway replica may answer a customer info request from memory (0-1000; `0` never); a write for the app through the same gateway drops it at once |
/// | `SHOPKEEPER_WEBHOOK_POLL_MS` | `500` | how often an idle webhook dispatcher looks for due deliveries |
/// | `SHOPKEEPER_WEBHOOK_TIMEOUT_SECONDS` | `10` | one delivery attempt to an app's webhook |
/// | `SHOPKEEPER_WEBHOOK_RETRY_BASE_SECONDS` | `10` | first backoff after a failed delivery; doubles per attempt, capped at 1 hour, with jitter |
/// | `SHOPKEEPER_WEBHOOK_GIVE_UP_HOURS` | `26` | how long a delivery is retried before it becomes a dead letter (at least 24) |
/// | `SHOPKEEPER_WEBHOOK_CONCURRENCY` | `32` | most webhook attempts one replica keeps in flight |
/// | `SHOPKEEPER_WEBHOOK_CONCURRENCY_PER_APP` | `4` | most attempts in flight for one app, across every replica (at most `SHOPKEEPER_WEBHOOK_CONCURRENCY`): a slow or failing receiver holds this many, never the others' share |
/// | `SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS` | `false` | deliver to loopback, private, link-local and other non-public addresses (local receivers in development and tests); refused in production |
/// | `SHOPKEEPER_MASTER_KEY` | a development value | seals webhook signing secrets at rest (32+ characters; required in production); the same variable the verifier and the gateway seal their secrets with |
/// | `SHOPKEEPER_SUBSCRIPTIONS_URL` | `http://127.0.0.1:8084` | the subscriptions service (trials, eligibility) |
/// | `SHOPKEEPER_SUBSCRIPTIONS_TIMEOUT_SECONDS` | `10` | one call to the subscriptions service |
/// | `SHOPKEEPER_SUBSCRIPTION_RELAY_MS` | `250` | how often an idle replica relays subscription changes to events, webhooks and its cache |
/// | `SHOPKEEPER_REDEMPTION_CODE_DAYS` | `30` | how long a redemption code (`POST /v1/customers/{id}/redemption-codes`) may be redeemed (1-365) |
/// | `SHOPKEEPER_REPORT_REFRESH_SECONDS` | `300` | how often the report summaries of every app are brought up to date in the background, so a report request never builds them; `0`: only report requests do |
struct EntitlementsSettings: Sendable {
    var service: ServiceSettings
    var webhooks: WebhookSettings
    /// Seals webhook signing secrets (``WebhookSecretBox``).
    var masterKey: String
    var customerCacheTTL: Duration
    var customerCacheEntries: Int
    var customerGatewayCacheTTL: Duration
    var subscriptionsURL: URL
    var subscriptionsTimeout: Duration
    var relayInterval: Duration
    /// ``ReportSummaryRefresher``'s interval; nil: off.
    var reportRefresh: Duration? = .seconds(300)
    /// How long a redemption code stays valid (``RedemptionRepository``).
    var redemptionCodeLifetime: Duration = .seconds(30 * 86_400)

    static func read(from environment: EnvironmentReader = EnvironmentReader()) throws(ConfigurationError)
        -> EntitlementsSettings
    {
        let service = try ServiceSettings.read(service: "entitlements", defaultPort: 8083, from: environment)
        let production = service.environment == .production
        let allowPrivateHosts = try environment.bool("SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS", default: false)
        if production, allowPrivateHosts {
            throw ConfigurationError(
                variable: "SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS",
                reason: "must not be true in production: tenants would reach this server's own network")
        }
        let concurrency = try environment.int("SHOPKEEPER_WEBHOOK_CONCURRENCY", default: 32, in: 1...1024)
        let cacheMilliseconds = try environment.int("SHOPKEEPER_CUSTOMER_CACHE_MS", default: 1000, in: 0...60_000)
        if cacheMilliseconds > 0, service.database.sessionSettings == nil {
            throw ConfigurationError(
                variable: "DATABASE_DIRECT_URL",
                reason: "must name PostgreSQL itself when SHOPKEEPER_DB_POOLER=transaction: the customer info cache "
                    + "learns of changes by LISTEN, which needs a session of its own (or turn the cache off: "
                    + "SHOPKEEPER_CUSTOMER_CACHE_MS=0)")
        }
        return EntitlementsSettings(
            service: service,
            webhooks: WebhookSettings(
                pollInterval: .milliseconds(
                    try environment.int("SHOPKEEPER_WEBHOOK_POLL_MS", default: 500, in: 10...60_000)),
                timeout: try environment.seconds(
                    "SHOPKEEPER_WEBHOOK_TIMEOUT_SECONDS", default: .seconds(10), in: 0.1...60),
                retryBase: try environment.seconds(
                    "SHOPKEEPER_WEBHOOK_RETRY_BASE_SECONDS", default: .seconds(10), in: 0.01...3600),
                giveUpAfter: .seconds(
                    3600 * (try environment.double("SHOPKEEPER_WEBHOOK_GIVE_UP_HOURS", default: 26, in: 0...720))),
                allowPrivateHosts: allowPrivateHosts,
                concurrency: concurrency,
                perAppConcurrency: try environment.int(
                    "SHOPKEEPER_WEBHOOK_CONCURRENCY_PER_APP", default: min(4, concurrency), in: 1...concurrency)
            ),
            masterKey: try environment.secret(
                "SHOPKEEPER_MASTER_KEY", developmentDefault: developmentMasterKey, environment: service.environment),
            customerCacheTTL: .milliseconds(cacheMilliseconds),
            customerCacheEntries: try environment.int(
                "SHOPKEEPER_CUSTOMER_CACHE_ENTRIES", default: 50_000, in: 100...10_000_000),
            customerGatewayCacheTTL: .milliseconds(
                try environment.int("SHOPKEEPER_CUSTOMER_GATEWAY_CACHE_MS", default: 250, in: 0...1000)),
            subscriptionsURL: try environment.httpURL("SHOPKEEPER_SUBSCRIPTIONS_URL", default: "http://127.0.0.1:8084"),
            subscriptionsTimeout: try environment.seconds(
                "SHOPKEEPER_SUBSCRIPTIONS_TIMEOUT_SECONDS", default: .seconds(10), in: 0.1...120),
            relayInterval: .milliseconds(
                try environment.int("SHOPKEEPER_SUBSCRIPTION_RELAY_MS", default: 250, in: 10...60_000)),
            reportRefresh: try ReportRefreshSetting.read(from: environment),
            redemptionCodeLifetime: .seconds(
                86_400 * (try environment.int("SHOPKEEPER_REDEMPTION_CODE_DAYS", default: 30, in: 1...365)))
        )
    }
}

extension EntitlementsSettings {
    /// The master key of development (`SHOPKEEPER_ENV=development`) when none is set: the verifier's and the
    /// gateway's, so that one local setup shares one key.
    static let developmentMasterKey = "shopkeeper-development-master-key-not-for-production"

    /// Which webhook URLs apps may set and be delivered to: private hosts only when allowed (never in production).
    var webhookURLPolicy: WebhookURLPolicy {
        WebhookURLPolicy(allowPrivateHosts: webhooks.allowPrivateHosts && service.environment != .production)
    }
}

/// How webhooks are delivered.
struct WebhookSettings: Sendable {
    var pollInterval: Duration
    var timeout: Duration
    var retryBase: Duration
    var giveUpAfter: Duration
    /// Whether non-public destinations are allowed (development and tests only).
    var allowPrivateHosts: Bool
    /// Most attempts in flight in one replica.
    var concurrency: Int
    /// Most attempts in flight for one app across every replica.
    var perAppConcurrency: Int
}

extension EntitlementsSettings {
    /// A customer info cache with these settings.
    func makeCustomerInfoCache() -> CustomerInfoCache {
        CustomerInfoCache(ttl: customerCacheTTL, maximumEntries: customerCacheEntries)
    }
}
