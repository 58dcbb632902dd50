import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels

/// The devices bound to purchases (counted against the app's device limit).
protocol PurchaseDeviceRepository: Sendable {
    /// Forgets every device that presented the purchase, so its count starts again; the number forgotten. Throws
    /// ``EntitlementsError/purchaseNotFound(_:)`` when the app has no such purchase.
    func clearDevices(store: StorePlatform, originalTransactionID: String, appID: String) async throws -> Int
}

/// ``PurchaseDeviceRepository`` on PostgreSQL.
struct PurchaseDevicePostgresRepository: PurchaseDeviceRepository {
    let client: PostgresClient
    let logger: Logger

    func clearDevices(store: StorePlatform, originalTransactionID: String, appID: String) async throws -> Int {
        try await client.transaction(logger: logger) { connection in
            // The purchase's lock orders this against an apply binding a device to it at the same time.
            guard
                try await PurchaseRow.lock(
                    store: store, originalTransactionID: originalTransactionID, appID: appID, on: connection,
                    logger: logger) != nil
            else { throw EntitlementsError.purchaseNotFound(originalTransactionID) }
            let storeName: String = store.rawValue
            let rows = try await connection.checkedQuery(
                """
                WITH cleared AS (
                    DELETE FROM entitlements.purchase_devices
                    WHERE store = \(storeName) AND original_transaction_id = \(originalTransactionID)
                    RETURNING 1
                )
                SELECT count(*) FROM cleared
                """,
                logger: logger
            )
            var cleared: Int64 = 0
            for try await count in rows.decode(Int64.self) { cleared = count }
            return Int(cleared)
        }
    }
}
