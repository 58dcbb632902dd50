import Logging
import PostgresNIO
import ShopkeeperDatabase

/// Reads an app's entitlement settings; an app without a row gets ``AppEntitlementSettings/defaults``.
enum SettingsRows {
    static func read(appID: String, on connection: PostgresConnection, logger: Logger) async throws
        -> AppEntitlementSettings
    {
        let rows = try await connection.run(Select.self, try PostgresBindings(appID), logger: logger) {
            try $0.decode((String, Int, Bool, String?).self)
        }
        return rows.first.map { settings(policy: $0.0, limit: $0.1, sandbox: $0.2, webhook: $0.3) } ?? .defaults
    }

    /// The settings of an `app_settings` row's columns; ``AppEntitlementSettings/defaults`` when the app has no row
    /// (a left join's NULLs).
    static func settings(policy: String?, limit: Int?, sandbox: Bool?, webhook: String?) -> AppEntitlementSettings {
        guard let policy, let limit, let sandbox else { return .defaults }
        return AppEntitlementSettings(
            transferPolicy: TransferPolicy(rawValue: policy) ?? .transfer, deviceLimit: limit, acceptSandbox: sandbox,
            webhookURL: webhook)
    }

    /// The URL of the app's settings endpoint when it is enabled: the settings' `webhook_url`.
    static func settingsEndpointURL(appID: String, on connection: PostgresConnection, logger: Logger) async throws
        -> String?
    {
        let rows = try await connection.checkedQuery(
            """
            SELECT url FROM entitlements.webhook_endpoints WHERE app_id = \(appID) AND from_settings AND enabled
            """,
            logger: logger
        )
        for try await url in rows.decode(String.self) { return url }
        return nil
    }

    private enum Select: PreparedSQL {
        static let sql = """
            SELECT s.transfer_policy, s.device_limit, s.accept_sandbox,
                (SELECT p.url FROM entitlements.webhook_endpoints p
                 WHERE p.app_id = s.app_id AND p.from_settings AND p.enabled)
            FROM entitlements.app_settings s WHERE s.app_id = $1::text
            """
    }
}
