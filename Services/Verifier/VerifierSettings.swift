import Foundation
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperStores
import X509

/// The verifier's settings: the common ones plus
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_PORT` | `8082` | |
/// | `SHOPKEEPER_MASTER_KEY` | a development value | encrypts store credentials at rest (32+ characters; required in production) |
/// | `SHOPKEEPER_APPLE_ROOT_CERTIFICATES` | none | extra trusted roots for App Store signatures: comma-separated PEM file paths (the sandbox store's root in development); refused in production |
/// | `SHOPKEEPER_APPLE_ALLOW_LOCAL_ENVIRONMENTS` | `true` outside production | may accept `Xcode` and `LocalTesting` proofs, for apps not in production mode that uploaded their StoreKit test certificate; `false` refuses them for every app; must be `false` in production |
/// | `SHOPKEEPER_APPLE_PRODUCTION_RECEIPT_URL` | `https://buy.itunes.apple.com/verifyReceipt` | legacy receipt validation |
/// | `SHOPKEEPER_APPLE_SANDBOX_RECEIPT_URL` | `https://sandbox.itunes.apple.com/verifyReceipt` | |
/// | `SHOPKEEPER_APPLE_PRODUCTION_API_URL` | `https://api.storekit.itunes.apple.com` | App Store Server API |
/// | `SHOPKEEPER_APPLE_SANDBOX_API_URL` | `https://api.storekit-sandbox.itunes.apple.com` | |
/// | `SHOPKEEPER_GOOGLE_API_URL` | `https://androidpublisher.googleapis.com` | Play Developer API |
/// | `SHOPKEEPER_APP_STORE_CONNECT_URL` | `https://api.appstoreconnect.apple.com` | App Store Connect API (the catalog sync; the sandbox store's `/appstoreconnect` in development) |
/// | `SHOPKEEPER_STRIPE_API_URL` | `https://api.stripe.com` | Stripe's API (the sandbox store's `/stripe` in development); live Stripe keys are accepted only with Stripe's own URL |
/// | `SHOPKEEPER_STORE_TIMEOUT_SECONDS` | `10` | one call to a store |
/// | `SHOPKEEPER_STORE_ATTEMPTS` | `3` | tries of a retryable store answer before answering 503 |
/// | `SHOPKEEPER_STORE_RETRY_BASE_MS` | `200` | first backoff; doubles per try, capped at 2 s |
/// | `SHOPKEEPER_ENTITLEMENTS_URL` | `http://127.0.0.1:8083` | the entitlements service, which applies recorded facts |
/// | `SHOPKEEPER_GOOGLE_PUSH_AUDIENCE` | unset | the audience of the Pub/Sub push subscription's OIDC tokens; with `SHOPKEEPER_GOOGLE_PUSH_JWKS`, pushes may authenticate with Google's token |
/// | `SHOPKEEPER_GOOGLE_PUSH_JWKS` | unset | a file with Google's signing keys (JWKS, from https://www.googleapis.com/oauth2/v3/certs) |
/// | `SHOPKEEPER_GOOGLE_PUSH_EMAILS` | any | comma-separated push service accounts accepted |
/// | `SHOPKEEPER_NOTIFICATION_RETRY_MS` | `250` | how often an idle replica looks for store notifications to process, and the first backoff of one whose processing failed |
/// | `SHOPKEEPER_NOTIFICATION_WORKERS` | `8` | batches of up to 100 store notifications one replica processes at once (each mostly waits on the database and two services) |
/// | `SHOPKEEPER_SUBSCRIPTIONS_URL` | `http://127.0.0.1:8084` | the subscriptions service, which keeps subscription timelines |
/// | `SHOPKEEPER_APPLY_TIMEOUT_SECONDS` | `10` | one apply call to the entitlements service |
/// | `SHOPKEEPER_APPLY_RETRY_SECONDS` | `5` | how often, and after how long, recorded facts whose apply did not finish are applied again in the background |
/// | `SHOPKEEPER_RECONCILE_INTERVAL_SECONDS` | `60` | how often an idle replica looks for stale subscriptions to ask the store about |
/// | `SHOPKEEPER_RECONCILE_AFTER_SECONDS` | `300` | how long after a period's end with no word from the store a subscription counts as stale |
/// | `SHOPKEEPER_RECONCILE_BACKOFF_SECONDS` | `600` | the pause after the first check of a stale period end; it doubles with each further check, up to a day |
/// | `SHOPKEEPER_NOTIFICATION_RECOVERY_INTERVAL_SECONDS` | `900` | how often each app's App Store notification history is read for notifications that never arrived (apps with an App Store Server API key) |
/// | `SHOPKEEPER_NOTIFICATION_RECOVERY_OVERLAP_SECONDS` | `600` | how far before the last seen notification time each read starts again |
/// | `SHOPKEEPER_REFUND_LOOKUPS_PER_RUN` | `100` | App Store purchases bought without an `appAccountToken` (of the last 180 days, not refunded) whose refund history each recovery run of an app asks for, least recently asked first; `0` asks for none |
///
/// Google Play's own jobs:
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_GOOGLE_VOIDED_POLL_SECONDS` | `600` | how often each app with Google credentials has its voided purchases (`purchases.voidedpurchases.list`) read and applied |
///
/// Consuming granted consumables (an app's `consume_consumables`) is retried like the background apply, every
/// `SHOPKEEPER_APPLY_RETRY_SECONDS` at first.
///
/// In production only Apple's and Google's own URLs and only Apple Root CA - G3 are accepted, so a
/// production verifier can never trust the sandbox store.
struct VerifierSettings: Sendable {
    static let developmentMasterKey = "shopkeeper-development-master-key-not-for-production"

    var service: ServiceSettings
    var masterKey: String
    var appleRoots: [Certificate]
    var allowLocalAppleEnvironments: Bool
    var endpoints: StoreEndpoints
    var storeTimeout: Duration
    var storeAttempts: Int
    var retryBase: Duration
    var entitlementsURL: URL
    var subscriptionsURL: URL
    var notificationRetryInterval: Duration
    /// Notification batches processed at once by this replica.
    var notificationWorkers: Int
    /// Checks Pub/Sub push OIDC tokens, when configured.
    var googlePushTokens: GooglePushTokenVerifier?
    var applyTimeout: Duration
    var applyRetryInterval: Duration
    var reconciler: ReconcilerSettings
    var notificationRecovery: NotificationRecoverySettings
    /// How often each app's Play voided purchases are polled.
    var googleVoidedPollInterval: Duration

    static func read(from environment: EnvironmentReader = EnvironmentReader()) throws(ConfigurationError)
        -> VerifierSettings
    {
        let service = try ServiceSettings.read(service: "verifier", defaultPort: 8082, from: environment)
        let production = service.environment == .production
        let endpoints = StoreEndpoints(
            appleProductionReceipts: try environment.httpURL(
                "SHOPKEEPER_APPLE_PRODUCTION_RECEIPT_URL", default: StoreEndpoints.official.appleProductionReceipts),
            appleSandboxReceipts: try environment.httpURL(
                "SHOPKEEPER_APPLE_SANDBOX_RECEIPT_URL", default: StoreEndpoints.official.appleSandboxReceipts),
            appleProductionAPI: try environment.httpURL(
                "SHOPKEEPER_APPLE_PRODUCTION_API_URL", default: StoreEndpoints.official.appleProductionAPI),
            appleSandboxAPI: try environment.httpURL(
                "SHOPKEEPER_APPLE_SANDBOX_API_URL", default: StoreEndpoints.official.appleSandboxAPI),
            googleAPI: try environment.httpURL("SHOPKEEPER_GOOGLE_API_URL", default: StoreEndpoints.official.googleAPI),
            stripeAPI: try environment.httpURL("SHOPKEEPER_STRIPE_API_URL", default: StoreEndpoints.official.stripeAPI),
            appStoreConnect: try environment.httpURL(
                "SHOPKEEPER_APP_STORE_CONNECT_URL", default: StoreEndpoints.official.appStoreConnect)
        )
        if production, let variable = endpoints.firstUnofficial() {
            throw ConfigurationError(variable: variable, reason: "must be the store's own URL in production")
        }
        let allowLocal = try environment.bool("SHOPKEEPER_APPLE_ALLOW_LOCAL_ENVIRONMENTS", default: !production)
        if production && allowLocal {
            throw ConfigurationError(
                variable: "SHOPKEEPER_APPLE_ALLOW_LOCAL_ENVIRONMENTS", reason: "must be false in production")
        }
        let googleVoidedPollInterval = try environment.seconds(
            "SHOPKEEPER_GOOGLE_VOIDED_POLL_SECONDS", default: .seconds(600), in: 0.05...86_400)
        return VerifierSettings(
            service: service,
            masterKey: try environment.secret(
                "SHOPKEEPER_MASTER_KEY",
                localDefault: production ? nil : developmentMasterKey
            ),
            appleRoots: try readAppleRoots(environment, production: production),
            allowLocalAppleEnvironments: allowLocal,
            endpoints: endpoints,
            storeTimeout: try environment.seconds(
                "SHOPKEEPER_STORE_TIMEOUT_SECONDS", default: .seconds(10), in: 0.1...120),
            storeAttempts: try environment.int("SHOPKEEPER_STORE_ATTEMPTS", default: 3, in: 1...10),
            retryBase: .milliseconds(
                try environment.int("SHOPKEEPER_STORE_RETRY_BASE_MS", default: 200, in: 1...10_000)),
            entitlementsURL: try environment.httpURL("SHOPKEEPER_ENTITLEMENTS_URL", default: "http://127.0.0.1:8083"),
            subscriptionsURL: try environment.httpURL("SHOPKEEPER_SUBSCRIPTIONS_URL", default: "http://127.0.0.1:8084"),
            notificationRetryInterval: .milliseconds(
                try environment.int("SHOPKEEPER_NOTIFICATION_RETRY_MS", default: 250, in: 10...600_000)),
            notificationWorkers: try environment.int("SHOPKEEPER_NOTIFICATION_WORKERS", default: 8, in: 1...64),
            googlePushTokens: try readGooglePushTokens(environment),
            applyTimeout: try environment.seconds(
                "SHOPKEEPER_APPLY_TIMEOUT_SECONDS", default: .seconds(10), in: 0.1...120),
            applyRetryInterval: try environment.seconds(
                "SHOPKEEPER_APPLY_RETRY_SECONDS", default: .seconds(5), in: 0.05...3600),
            reconciler: ReconcilerSettings(
                interval: try environment.seconds(
                    "SHOPKEEPER_RECONCILE_INTERVAL_SECONDS", default: .seconds(60), in: 0.05...86_400),
                after: try environment.seconds(
                    "SHOPKEEPER_RECONCILE_AFTER_SECONDS", default: .seconds(300), in: 0...604_800),
                backoff: try environment.seconds(
                    "SHOPKEEPER_RECONCILE_BACKOFF_SECONDS", default: .seconds(600), in: 0.05...86_400)),
            notificationRecovery: NotificationRecoverySettings(
                interval: try environment.seconds(
                    "SHOPKEEPER_NOTIFICATION_RECOVERY_INTERVAL_SECONDS", default: .seconds(900), in: 0.05...86_400),
                overlap: try environment.seconds(
                    "SHOPKEEPER_NOTIFICATION_RECOVERY_OVERLAP_SECONDS", default: .seconds(600), in: 0...86_400),
                refundLookupsPerRun: try environment.int(
                    "SHOPKEEPER_REFUND_LOOKUPS_PER_RUN", default: 100, in: 0...10_000)),
            googleVoidedPollInterval: googleVoidedPollInterval
        )
    }

    /// The Pub/Sub OIDC check: both the audience and the keys, or neither.
    private static func readGooglePushTokens(_ environment: EnvironmentReader) throws(ConfigurationError)
        -> GooglePushTokenVerifier?
    {
        let audience = environment.raw("SHOPKEEPER_GOOGLE_PUSH_AUDIENCE")
        let path = environment.raw("SHOPKEEPER_GOOGLE_PUSH_JWKS")
        guard let audience, let path else {
            if audience != nil || path != nil {
                throw ConfigurationError(
                    variable: audience == nil ? "SHOPKEEPER_GOOGLE_PUSH_AUDIENCE" : "SHOPKEEPER_GOOGLE_PUSH_JWKS",
                    reason: "must be set together with the other one")
            }
            return nil
        }
        guard let jwks = try? String(contentsOfFile: path, encoding: .utf8), jwks.contains("\"keys\"") else {
            throw ConfigurationError(variable: "SHOPKEEPER_GOOGLE_PUSH_JWKS", reason: "must name a readable JWKS file")
        }
        let emails = Set(
            (environment.raw("SHOPKEEPER_GOOGLE_PUSH_EMAILS") ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        return GooglePushTokenVerifier(jwksJSON: jwks, audience: audience, emails: emails)
    }

    /// Apple Root CA - G3 (StoreKit 2) and Apple Inc. Root (receipts), plus the configured extra roots outside
    /// production.
    private static func readAppleRoots(_ environment: EnvironmentReader, production: Bool) throws(ConfigurationError)
        -> [Certificate]
    {
        let variable = "SHOPKEEPER_APPLE_ROOT_CERTIFICATES"
        var roots: [Certificate] = []
        do {
            let builtIn = [
                (try AppleRootCertificates.appleRootCAG3(), AppleRootCertificates.appleRootCAG3Fingerprint),
                (try AppleRootCertificates.appleIncRoot(), AppleRootCertificates.appleIncRootFingerprint),
            ]
            for (root, fingerprint) in builtIn {
                guard try AppleRootCertificates.fingerprint(of: root) == fingerprint else {
                    throw ConfigurationError(
                        variable: variable, reason: "a built-in Apple root has the wrong fingerprint")
                }
                roots.append(root)
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(variable: variable, reason: "a built-in Apple root does not parse: \(error)")
        }
        let paths = (environment.raw(variable) ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        if production && !paths.isEmpty {
            throw ConfigurationError(
                variable: variable, reason: "must be unset in production (only Apple's root is trusted)")
        }
        for path in paths {
            do {
                let pem = try String(contentsOfFile: path, encoding: .utf8)
                roots.append(try Certificate(pemEncoded: pem))
            } catch {
                throw ConfigurationError(variable: variable, reason: "'\(path)' is not a readable PEM certificate")
            }
        }
        return roots
    }
}

/// Where the stores answer.
struct StoreEndpoints: Sendable {
    var appleProductionReceipts: URL
    var appleSandboxReceipts: URL
    var appleProductionAPI: URL
    var appleSandboxAPI: URL
    var googleAPI: URL
    /// Stripe's API base (paths such as `/v1/events/{id}` are added to it).
    var stripeAPI: URL
    /// The App Store Connect API base (paths such as `/v1/apps` are added to it).
    var appStoreConnect: URL

    /// The stores' own addresses.
    static let official = (
        appleProductionReceipts: "https://buy.itunes.apple.com/verifyReceipt",
        appleSandboxReceipts: "https://sandbox.itunes.apple.com/verifyReceipt",
        appleProductionAPI: "https://api.storekit.itunes.apple.com",
        appleSandboxAPI: "https://api.storekit-sandbox.itunes.apple.com",
        googleAPI: "https://androidpublisher.googleapis.com",
        stripeAPI: "https://api.stripe.com",
        appStoreConnect: "https://api.appstoreconnect.apple.com"
    )

    /// Whether live-mode Stripe keys may be used: only with Stripe's own API, so a live key never reaches another
    /// address (such as the sandbox store).
    var stripeLiveKeysAllowed: Bool { stripeAPI.absoluteString == Self.official.stripeAPI }

    /// The variable of the first URL that is not the store's own, if any.
    func firstUnofficial() -> String? {
        let checks: [(URL, String, String)] = [
            (appleProductionReceipts, Self.official.appleProductionReceipts, "SHOPKEEPER_APPLE_PRODUCTION_RECEIPT_URL"),
            (appleSandboxReceipts, Self.official.appleSandboxReceipts, "SHOPKEEPER_APPLE_SANDBOX_RECEIPT_URL"),
            (appleProductionAPI, Self.official.appleProductionAPI, "SHOPKEEPER_APPLE_PRODUCTION_API_URL"),
            (appleSandboxAPI, Self.official.appleSandboxAPI, "SHOPKEEPER_APPLE_SANDBOX_API_URL"),
            (googleAPI, Self.official.googleAPI, "SHOPKEEPER_GOOGLE_API_URL"),
            (stripeAPI, Self.official.stripeAPI, "SHOPKEEPER_STRIPE_API_URL"),
            (appStoreConnect, Self.official.appStoreConnect, "SHOPKEEPER_APP_STORE_CONNECT_URL"),
        ]
        return checks.first { $0.0.absoluteString != $0.1 }?.2
    }
}
