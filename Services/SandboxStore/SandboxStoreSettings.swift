import Foundation
import ShopkeeperCore
import ShopkeeperHTTP

/// The sandbox store's settings: the common ones of a service without a database plus
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_PORT` | `8090` | |
/// | `SHOPKEEPER_SANDBOX_STATE_DIR` | `.shopkeeper/sandbox` | where purchases (`state.json`, a snapshot, and `state.<n>.log`, the changes since) and the signing PKI (`pki.pem`) are kept across restarts; also the push-token key (`google-push-key.pem`) and the keys to trust: `root.pem` (App Store signatures), `google-push-jwks.json` (Pub/Sub push tokens) |
/// | `SHOPKEEPER_SANDBOX_STATE_FSYNC` | `false` | `true` flushes each change of the state log to disk (`fdatasync`) before the operation answers: survives a power loss, at a disk flush per purchase; by default a change is safe once written (it survives the process being killed), see `StateJournal` |
/// | `SHOPKEEPER_SANDBOX_PUBLIC_URL` | from the request's `Host` | the base URL clients reach this store at; the `token_uri` of the Google service accounts it issues |
/// | `SHOPKEEPER_SANDBOX_APPLE_NOTIFICATION_URL` | unset: none sent | where App Store Server Notifications V2 are POSTed (`{"signedPayload": ...}`); also `PUT /sandbox/notifications` |
/// | `SHOPKEEPER_SANDBOX_GOOGLE_NOTIFICATION_URL` | unset: none sent | where Play real-time developer notifications are pushed (a Pub/Sub push envelope with an OIDC bearer token); also `PUT /sandbox/notifications` |
/// | `SHOPKEEPER_SANDBOX_GOOGLE_PUSH_AUDIENCE` | the Google notification URL | the `aud` of the push's OIDC token |
/// | `SHOPKEEPER_SANDBOX_GOOGLE_PUSH_EMAIL` | `play-rtdn-push@shopkeeper-sandbox.iam.gserviceaccount.com` | the `email` of the push's OIDC token (the push service account) |
/// | `SHOPKEEPER_SANDBOX_STRIPE_SECRET_KEY` | `sk_test_shopkeeper_sandbox` | the secret key Stripe's API under `/stripe/v1` accepts (`Authorization: Bearer`, or Basic with the key as user) |
/// | `SHOPKEEPER_SANDBOX_STRIPE_WEBHOOK_URL` | unset: none sent | where Stripe webhooks (events as JSON, with `Stripe-Signature`) are POSTed; also `PUT /sandbox/notifications` (`stripe_url`) |
/// | `SHOPKEEPER_SANDBOX_STRIPE_WEBHOOK_SECRET` | `whsec_shopkeeper_sandbox` | the webhook signing secret; a comma-separated list signs with each (one `v1=` per secret, as while a secret is rolled) |
/// | `SHOPKEEPER_SANDBOX_TIME_SCALE` | `1` | how many times faster subscription periods, grace periods, billing retry and account hold pass (dates stay real): `8640` makes `P1M` five minutes, as on Apple's sandbox; `period` of a purchase is divided by it, an explicit `expires_date` is not |
/// | `SHOPKEEPER_SANDBOX_AUTO_RENEW` | `true` | the clock renews, fails and expires subscriptions whose period ends while the store runs (every `..._TICK_MS`); `false` leaves it to `advance` |
/// | `SHOPKEEPER_SANDBOX_TICK_MS` | `1000` | how often the clock looks for periods that ended |
/// | `SHOPKEEPER_SANDBOX_NOTIFICATION_ATTEMPTS` | `6` | attempts per notification while the receiver answers non-2xx or nothing |
/// | `SHOPKEEPER_SANDBOX_NOTIFICATION_RETRY_MS` | `200` | the first retry's delay; each next one doubles |
///
/// Subscriptions bought with an expiry already past are history: the clock moves only those whose period ends while
/// the store runs (or that a control moved: `advance`, `billing`, `change-product`).
///
/// `SHOPKEEPER_ENV=production` stops the start: a sandbox store never runs in production.
struct SandboxStoreSettings: Sendable {
    var service: StandaloneServiceSettings
    var stateDirectory: URL
    var fsyncEachChange: Bool
    var publicURL: URL?
    var appleNotificationURL: URL?
    var googleNotificationURL: URL?
    var googlePushAudience: String?
    var googlePushEmail: String
    var timeScale: Double
    var autoRenew: Bool
    var tick: Duration
    var notificationAttempts: Int
    var notificationRetryDelay: Duration
    var stripeSecretKey: String
    var stripeWebhookURL: URL?
    var stripeWebhookSecrets: [String]

    static func read(from environment: EnvironmentReader = EnvironmentReader()) throws(ConfigurationError)
        -> SandboxStoreSettings
    {
        let service = try StandaloneServiceSettings.read(
            service: "sandbox-store", defaultPort: 8090, from: environment)
        guard service.environment != .production else {
            throw ConfigurationError(
                variable: "SHOPKEEPER_ENV",
                reason: "is production, and the sandbox store never runs in production (it would sell for free)"
            )
        }
        let publicURL: URL? =
            if environment.raw("SHOPKEEPER_SANDBOX_PUBLIC_URL") != nil {
                try environment.httpURL("SHOPKEEPER_SANDBOX_PUBLIC_URL", default: "")
            } else {
                nil
            }
        func optionalURL(_ name: String) throws(ConfigurationError) -> URL? {
            guard let text = environment.raw(name), !text.isEmpty else { return nil }
            return try environment.httpURL(name, default: "")
        }
        let appleNotificationURL = try optionalURL("SHOPKEEPER_SANDBOX_APPLE_NOTIFICATION_URL")
        let googleNotificationURL = try optionalURL("SHOPKEEPER_SANDBOX_GOOGLE_NOTIFICATION_URL")
        let stripeWebhookURL = try optionalURL("SHOPKEEPER_SANDBOX_STRIPE_WEBHOOK_URL")
        let stripeSecretKey = environment.string(
            "SHOPKEEPER_SANDBOX_STRIPE_SECRET_KEY", default: "sk_test_shopkeeper_sandbox")
        guard stripeSecretKey.hasPrefix("sk_test_") || stripeSecretKey.hasPrefix("rk_test_") else {
            throw ConfigurationError(
                variable: "SHOPKEEPER_SANDBOX_STRIPE_SECRET_KEY", reason: "must be a test-mode key (sk_test_...)")
        }
        let stripeWebhookSecrets = environment.string(
            "SHOPKEEPER_SANDBOX_STRIPE_WEBHOOK_SECRET", default: "whsec_shopkeeper_sandbox"
        ).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !stripeWebhookSecrets.isEmpty else {
            throw ConfigurationError(
                variable: "SHOPKEEPER_SANDBOX_STRIPE_WEBHOOK_SECRET", reason: "must name at least one secret")
        }
        let audience = environment.raw("SHOPKEEPER_SANDBOX_GOOGLE_PUSH_AUDIENCE").flatMap { $0.isEmpty ? nil : $0 }
        let tickMilliseconds = try environment.int("SHOPKEEPER_SANDBOX_TICK_MS", default: 1000, in: 10...60_000)
        let retryMilliseconds = try environment.int(
            "SHOPKEEPER_SANDBOX_NOTIFICATION_RETRY_MS", default: 200, in: 1...600_000)
        return SandboxStoreSettings(
            service: service,
            stateDirectory: URL(
                fileURLWithPath: environment.string("SHOPKEEPER_SANDBOX_STATE_DIR", default: ".shopkeeper/sandbox"),
                isDirectory: true
            ),
            fsyncEachChange: try environment.bool("SHOPKEEPER_SANDBOX_STATE_FSYNC", default: false),
            publicURL: publicURL,
            appleNotificationURL: appleNotificationURL,
            googleNotificationURL: googleNotificationURL,
            googlePushAudience: audience,
            googlePushEmail: environment.string(
                "SHOPKEEPER_SANDBOX_GOOGLE_PUSH_EMAIL",
                default: "play-rtdn-push@shopkeeper-sandbox.iam.gserviceaccount.com"),
            timeScale: try environment.double("SHOPKEEPER_SANDBOX_TIME_SCALE", default: 1, in: 0.001...10_000_000),
            autoRenew: try environment.bool("SHOPKEEPER_SANDBOX_AUTO_RENEW", default: true),
            tick: .milliseconds(tickMilliseconds),
            notificationAttempts: try environment.int(
                "SHOPKEEPER_SANDBOX_NOTIFICATION_ATTEMPTS", default: 6, in: 1...50),
            notificationRetryDelay: .milliseconds(retryMilliseconds),
            stripeSecretKey: stripeSecretKey,
            stripeWebhookURL: stripeWebhookURL,
            stripeWebhookSecrets: stripeWebhookSecrets
        )
    }
}
