import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase

/// An app's entitlement settings as saved, with a webhook secret created by the save.
struct SavedSettings: Sendable, Equatable {
    var settings: AppEntitlementSettings
    /// The webhook signing secret when this save created it (the first time the app got a webhook URL).
    var createdWebhookSecret: String?
}

/// Reads and changes apps' entitlement settings.
protocol SettingsRepository: Sendable {
    /// The app's settings; ``AppEntitlementSettings/defaults`` when it never saved any.
    func settings(appID: String) async throws -> AppEntitlementSettings
    /// Applies `change` atomically on top of the current settings (or the defaults) and returns the result.
    func save(_ change: SettingsChange, appID: String) async throws -> SavedSettings
    /// Replaces the webhook signing secret; throws ``WebhookError/notConfigured`` when the app has no webhook.
    func rotateWebhookSecret(appID: String) async throws -> String
}

/// ``SettingsRepository`` on PostgreSQL. Webhook secrets are stored sealed (``WebhookSecretBox``): the plaintext is
/// shown to the caller once and never written to the database.
struct SettingsPostgresRepository: SettingsRepository {
    let client: PostgresClient
    let box: WebhookSecretBox
    let logger: Logger

    /// A new webhook signing secret: `whsec_` and 32 base-62 characters (190 bits).
    static func newWebhookSecret() -> String {
        RandomToken.identifier(prefix: "whsec", length: 32)
    }

    func settings(appID: String) async throws -> AppEntitlementSettings {
        try await client.withConnection { connection in
            try await SettingsRows.read(appID: appID, on: connection, logger: logger)
        }
    }

    func save(_ change: SettingsChange, appID: String) async throws -> SavedSettings {
        let defaults = AppEntitlementSettings.defaults
        let policy: String? = change.transferPolicy?.rawValue
        let limit: Int? = change.deviceLimit
        let sandbox: Bool? = change.acceptSandbox
        let urlGiven: Bool
        let url: String?
        switch change.webhookURL {
        case .keep: (urlGiven, url) = (false, nil)
        case .remove: (urlGiven, url) = (true, nil)
        case .set(let value): (urlGiven, url) = (true, value)
        }
        let secret: String = Self.newWebhookSecret()
        let sealed = ByteBuffer(bytes: try box.seal(secret, appID: appID))
        let keyID: String = box.keyID
        let defaultPolicy: String = defaults.transferPolicy.rawValue
        let defaultLimit: Int = defaults.deviceLimit
        let defaultSandbox: Bool = defaults.acceptSandbox
        // One statement: concurrent saves each apply their change to the other's result, never to a stale read. The
        // secret is created once, when the app first has a URL; removing or changing the URL keeps it (a plaintext
        // one from an earlier release too: the dispatcher seals it).
        let rows = try await client.query(
            """
            INSERT INTO entitlements.app_settings AS s (
                app_id, transfer_policy, device_limit, accept_sandbox, webhook_url, webhook_secret_sealed,
                webhook_secret_key_id)
            VALUES (
                \(appID), coalesce(\(policy), \(defaultPolicy)), coalesce(\(limit), \(defaultLimit)),
                coalesce(\(sandbox), \(defaultSandbox)), \(url),
                CASE WHEN \(url)::text IS NULL THEN NULL ELSE \(sealed) END,
                CASE WHEN \(url)::text IS NULL THEN NULL ELSE \(keyID) END)
            ON CONFLICT (app_id) DO UPDATE SET
                transfer_policy = coalesce(\(policy), s.transfer_policy),
                device_limit = coalesce(\(limit), s.device_limit),
                accept_sandbox = coalesce(\(sandbox), s.accept_sandbox),
                webhook_url = CASE WHEN \(urlGiven) THEN \(url) ELSE s.webhook_url END,
                webhook_secret_sealed = CASE
                    WHEN s.webhook_secret_sealed IS NULL AND s.webhook_secret_unsealed IS NULL
                        AND (CASE WHEN \(urlGiven) THEN \(url) ELSE s.webhook_url END) IS NOT NULL THEN \(sealed)
                    ELSE s.webhook_secret_sealed END,
                webhook_secret_key_id = CASE
                    WHEN s.webhook_secret_sealed IS NULL AND s.webhook_secret_unsealed IS NULL
                        AND (CASE WHEN \(urlGiven) THEN \(url) ELSE s.webhook_url END) IS NOT NULL THEN \(keyID)
                    ELSE s.webhook_secret_key_id END,
                updated_at = now()
            RETURNING transfer_policy, device_limit, accept_sandbox, webhook_url,
                coalesce(webhook_secret_sealed = \(sealed), false)
            """,
            logger: logger
        )
        for try await (policy, limit, sandbox, url, created) in rows.decode((String, Int, Bool, String?, Bool).self) {
            let settings = AppEntitlementSettings(
                transferPolicy: TransferPolicy(rawValue: policy) ?? defaults.transferPolicy, deviceLimit: limit,
                acceptSandbox: sandbox, webhookURL: url)
            return SavedSettings(settings: settings, createdWebhookSecret: created ? secret : nil)
        }
        throw SettingsNotSaved()
    }

    func rotateWebhookSecret(appID: String) async throws -> String {
        let secret: String = Self.newWebhookSecret()
        let sealed = ByteBuffer(bytes: try box.seal(secret, appID: appID))
        let keyID: String = box.keyID
        let rows = try await client.query(
            """
            UPDATE entitlements.app_settings SET webhook_secret_sealed = \(sealed), webhook_secret_key_id = \(keyID),
                webhook_secret_unsealed = NULL, updated_at = now()
            WHERE app_id = \(appID) AND webhook_url IS NOT NULL
            RETURNING 1
            """,
            logger: logger
        )
        for try await _ in rows.decode(Int.self) { return secret }
        throw WebhookError.notConfigured
    }
}

/// The settings upsert returned no row (it always returns one).
struct SettingsNotSaved: Error {}
