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
        for (policy, limit, sandbox, webhook) in rows {
            return AppEntitlementSettings(
                transferPolicy: TransferPolicy(rawValue: policy) ?? .transfer, deviceLimit: limit,
                acceptSandbox: sandbox, webhookURL: webhook)
        }
        return .defaults
    }

    private enum Select: PreparedSQL {
        static let sql = """
            SELECT transfer_policy, device_limit, accept_sandbox, webhook_url
            FROM entitlements.app_settings WHERE app_id = $1::text
            """
    }
}
