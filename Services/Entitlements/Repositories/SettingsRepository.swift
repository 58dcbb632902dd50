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
    /// Replaces the settings endpoint's signing secret; throws ``WebhookError/notConfigured`` when the app has no
    /// webhook URL.
    func rotateWebhookSecret(appID: String) async throws -> String
}

/// ``SettingsRepository`` on PostgreSQL. The settings' `webhook_url` is the app's settings endpoint
/// (`webhook_endpoints.from_settings`), one of its webhook endpoints; its secret is stored sealed
/// (``WebhookSecretBox``): the plaintext is shown to the caller once and never written to the database.
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
        let defaultPolicy: String = defaults.transferPolicy.rawValue
        let defaultLimit: Int = defaults.deviceLimit
        let defaultSandbox: Bool = defaults.acceptSandbox
        return try await client.transaction(logger: logger) { connection in
            // One statement per table: concurrent saves each apply their change to the other's result, never to a
            // stale read.
            let rows = try await connection.checkedQuery(
                """
                INSERT INTO entitlements.app_settings AS s (app_id, transfer_policy, device_limit, accept_sandbox)
                VALUES (
                    \(appID), coalesce(\(policy), \(defaultPolicy)), coalesce(\(limit), \(defaultLimit)),
                    coalesce(\(sandbox), \(defaultSandbox)))
                ON CONFLICT (app_id) DO UPDATE SET
                    transfer_policy = coalesce(\(policy), s.transfer_policy),
                    device_limit = coalesce(\(limit), s.device_limit),
                    accept_sandbox = coalesce(\(sandbox), s.accept_sandbox),
                    updated_at = now()
                RETURNING transfer_policy, device_limit, accept_sandbox
                """,
                logger: logger
            )
            var saved: AppEntitlementSettings?
            for try await (policy, limit, sandbox) in rows.decode((String, Int, Bool).self) {
                saved = AppEntitlementSettings(
                    transferPolicy: TransferPolicy(rawValue: policy) ?? defaults.transferPolicy, deviceLimit: limit,
                    acceptSandbox: sandbox, webhookURL: nil)
            }
            guard var settings = saved else { throw SettingsNotSaved() }
            var created: String?
            switch change.webhookURL {
            case .keep: break
            case .remove: try await disableSettingsEndpoint(appID: appID, on: connection)
            case .set(let url): created = try await setSettingsEndpoint(url, appID: appID, on: connection)
            }
            settings.webhookURL = try await SettingsRows.settingsEndpointURL(
                appID: appID, on: connection, logger: logger)
            return SavedSettings(settings: settings, createdWebhookSecret: created)
        }
    }

    /// Points the app's settings endpoint at `url` (enabled), creating it with a new secret when the app has none;
    /// returns that secret when it created one. Changing the URL keeps the secret (a plaintext one from an earlier
    /// release too: the dispatcher seals it).
    private func setSettingsEndpoint(_ url: String, appID: String, on connection: PostgresConnection) async throws
        -> String?
    {
        let secret: String = Self.newWebhookSecret()
        let sealed = ByteBuffer(bytes: try box.seal(secret, appID: appID))
        let keyID: String = box.keyID
        let rows = try await connection.checkedQuery(
            """
            INSERT INTO entitlements.webhook_endpoints AS p (app_id, url, from_settings, secret_sealed, secret_key_id)
            VALUES (\(appID), \(url), true, \(sealed), \(keyID))
            ON CONFLICT (app_id) WHERE from_settings DO UPDATE SET url = excluded.url, enabled = true, updated_at = now()
            RETURNING coalesce(p.secret_sealed = \(sealed), false)
            """,
            logger: logger
        )
        var created = false
        for try await isNew in rows.decode(Bool.self) { created = isNew }
        return created ? secret : nil
    }

    /// `webhook_url: null`: the settings endpoint is disabled, its secret kept for when a URL is set again; its
    /// deliveries still pending end as dead at their next claim.
    private func disableSettingsEndpoint(appID: String, on connection: PostgresConnection) async throws {
        try await connection.run(
            """
            UPDATE entitlements.webhook_endpoints SET enabled = false, updated_at = now()
            WHERE app_id = \(appID) AND from_settings AND enabled
            """,
            logger: logger
        )
    }

    func rotateWebhookSecret(appID: String) async throws -> String {
        let secret: String = Self.newWebhookSecret()
        let sealed = ByteBuffer(bytes: try box.seal(secret, appID: appID))
        let keyID: String = box.keyID
        let rows = try await client.query(
            """
            UPDATE entitlements.webhook_endpoints SET secret_sealed = \(sealed), secret_key_id = \(keyID),
                updated_at = now()
            WHERE app_id = \(appID) AND from_settings AND enabled
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
