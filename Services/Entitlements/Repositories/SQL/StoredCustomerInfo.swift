import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP

/// Reads a customer's stored info (``StoredCustomerInfoRead``, the statement the gateway reads it with too): the
/// usual app launch, one row found by primary keys instead of a rendering from every table (``CustomerInfoQuery``,
/// which stores what it renders).
enum StoredCustomerInfo {
    /// What a read of the customer `appUserID` names found.
    struct Found: Sendable {
        var customerID: UUID
        /// The info, when a stored document still counts (nothing it shows changed, neither did the catalog nor the
        /// customer's subscriptions, no end or start passed since); `nil` when it must be rendered.
        var json: String?
        /// Whether `last_seen` was older than the resolution: the read showed the time of the read instead, and the
        /// caller records that the customer was seen (``LastSeenRecorder``).
        var lastSeenStale: Bool
        /// When the stored info changes by itself; `nil` when nothing is ahead.
        var validUntil: Date?
    }

    /// The customer `appUserID` names in app `appID`, with its stored info if it counts; `nil` for an id no customer
    /// has. `resolution`: how old `last_seen` may be before the read shows (and the caller records) the read's time.
    static func find(
        appID: String, appUserID: String, resolution: TimeInterval, on connection: PostgresConnection, logger: Logger
    ) async throws -> Found? {
        let bindings = try StoredCustomerInfoRead.bindings(appID: appID, appUserID: appUserID, resolution: resolution)
        return try await connection.run(StoredCustomerInfoRead.self, bindings, logger: logger) {
            let found = try StoredCustomerInfoRead.Found($0)
            return Found(
                customerID: found.customerID, json: found.json(appUserID: appUserID),
                lastSeenStale: found.lastSeenStale, validUntil: found.validUntil)
        }.first
    }
}
