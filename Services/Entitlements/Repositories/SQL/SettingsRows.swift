import Logging
import PostgresNIO

/// Reads an app's entitlement settings; an app without a row gets ``AppEntitlementSettings/defaults``.
enum SettingsRows {
    static func read(appID: String, on connection: PostgresConnection, logger: Logger) async throws
        -> AppEntitlementSettings
    {
        let rows = try await connection.query(
            """
            SELECT transfer_policy, device_limit, accept_sandbox, webhook_url
            FROM entitlements.app_settings WHERE app_id = \(appID)
            """,
            logger: logger
        )
        for try await (policy, limit, sandbox, webhook) in rows.decode((String, Int, Bool, String?).self) {
            return AppEntitlementSettings(
                transferPolicy: TransferPolicy(rawValue: policy) ?? .transfer, deviceLimit: limit,
                acceptSandbox: sandbox, webhookURL: webhook)
        }
        return .defaults
    }
}
