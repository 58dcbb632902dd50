import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// Reads a customer's stored info (`entitlements.customer_documents`): the usual app launch, one row found by three
/// primary keys (and the revisions of the customer's subscriptions, to tell a change there) instead of a
/// rendering from every table (``CustomerInfoQuery``, which stores what it renders).
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
        try await connection.run(Find.self, try PostgresBindings(appID, appUserID, resolution), logger: logger) {
            let (customerID, json, stale, validUntil) = try $0.decode((UUID, String?, Bool, Date?).self)
            return Found(customerID: customerID, json: json, lastSeenStale: stale, validUntil: validUntil)
        }.first
    }

    enum Find: PreparedSQL {
        static let sql = """
            SELECT a.customer_id,
                   CASE WHEN d.customer_id IS NOT NULL THEN \(
                       CustomerInfoQuery.assembled(
                           body: "d.body", appUserID: "$2::text",
                           lastSeen: """
                               CASE WHEN cu.last_seen < now() - make_interval(secs => $3::float8) THEN now()
                                    ELSE cu.last_seen END
                               """)) END,
                   cu.last_seen < now() - make_interval(secs => $3::float8),
                   d.valid_until
            FROM entitlements.aliases a
            JOIN entitlements.customers cu ON cu.customer_id = a.customer_id
            LEFT JOIN entitlements.customer_documents d ON d.customer_id = a.customer_id AND d.body IS NOT NULL
                AND (d.valid_until IS NULL OR d.valid_until > now())
                AND d.catalog_revision IS NOT DISTINCT FROM (
                    SELECT r.revision FROM catalog.revisions_v1 r WHERE r.app_id = $1::text)
                AND CASE WHEN d.subscriptions_stamp = -1 THEN true
                         ELSE d.subscriptions_stamp = \(CustomerInfoQuery.subscriptionsStamp(customer: "a.customer_id"))
                    END
            WHERE a.app_id = $1::text AND a.app_user_id = $2::text
            """
    }
}
