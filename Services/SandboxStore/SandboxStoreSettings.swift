import Foundation
import ShopkeeperCore
import ShopkeeperHTTP

/// The sandbox store's settings: the common ones of a service without a database plus
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_PORT` | `8090` | |
/// | `SHOPKEEPER_SANDBOX_STATE_DIR` | `.shopkeeper/sandbox` | where purchases (`state.json`) and the signing PKI (`pki.pem`) are kept across restarts |
/// | `SHOPKEEPER_SANDBOX_PUBLIC_URL` | from the request's `Host` | the base URL clients reach this store at; the `token_uri` of the Google service accounts it issues |
/// | `SHOPKEEPER_SANDBOX_APPLE_NOTIFICATION_URL` | none (nothing sent) | where to send App Store Server Notifications V2 (also `PUT /sandbox/notifications`) |
/// | `SHOPKEEPER_SANDBOX_TIME_SCALE` | `1` | how much faster subscription periods pass: `8640` makes P1M last five minutes, as on Apple's sandbox |
/// | `SHOPKEEPER_SANDBOX_AUTO_RENEW` | `false` | renew subscriptions by themselves when their period ends (with `DID_RENEW`), checked every second |
///
/// `SHOPKEEPER_ENV=production` stops the start: a sandbox store never runs in production.
struct SandboxStoreSettings: Sendable {
    var service: StandaloneServiceSettings
    var stateDirectory: URL
    var publicURL: URL?
    var appleNotificationURL: URL?
    var timeScale: Double
    var autoRenew: Bool

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
        let appleNotificationURL: URL? =
            if environment.raw("SHOPKEEPER_SANDBOX_APPLE_NOTIFICATION_URL") != nil {
                try environment.httpURL("SHOPKEEPER_SANDBOX_APPLE_NOTIFICATION_URL", default: "")
            } else {
                nil
            }
        return SandboxStoreSettings(
            service: service,
            stateDirectory: URL(
                fileURLWithPath: environment.string("SHOPKEEPER_SANDBOX_STATE_DIR", default: ".shopkeeper/sandbox"),
                isDirectory: true
            ),
            publicURL: publicURL,
            appleNotificationURL: appleNotificationURL,
            timeScale: try environment.double("SHOPKEEPER_SANDBOX_TIME_SCALE", default: 1, in: 1...1_000_000),
            autoRenew: try environment.bool("SHOPKEEPER_SANDBOX_AUTO_RENEW", default: false)
        )
    }
}
