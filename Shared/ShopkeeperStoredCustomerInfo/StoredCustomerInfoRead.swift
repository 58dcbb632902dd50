import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase
import ShopkeeperHTTP

/// A customer's stored info, read as every reader reads it: through `entitlements.stored_customer_info_v2`, which
/// the entitlements service publishes (migration 0032) and which alone says when a stored body still counts and
/// which `last_seen` the read shows. The entitlements service reads it before rendering; the gateway reads it to answer
/// an app launch without calling the service, and calls it only when nothing stored counts.
///
/// Bindings: `$1` the app id, `$2` the app user id, `$3` how old `last_seen` may be, in seconds, before a read shows
/// (and records) the time of the read instead (``LastSeenRecorder``).
package enum StoredCustomerInfoRead: PreparedSQL {
    package static let sql = """
        SELECT * FROM entitlements.stored_customer_info_v2($1::text, $2::text, $3::float8)
        """

    /// Several reads in one statement (the gateway's, under load): `$1` the app ids, `$2` the app user ids (arrays of
    /// the same length), `$3` the resolution. Each row starts with the 1-based position of its read; a read whose id
    /// no customer has has no row.
    package enum Batch: PreparedSQL {
        package static let sql = """
            SELECT r.n, f.* FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(app_id, app_user_id, n)
            CROSS JOIN LATERAL entitlements.stored_customer_info_v2(r.app_id, r.app_user_id, $3::float8) AS f
            """

        /// The reads of `keys` (app id, app user id), by position: `nil` where no customer has the id.
        package static func read(
            _ keys: [(appID: String, appUserID: String)], resolution: TimeInterval, on connection: PostgresConnection,
            logger: Logger
        ) async throws -> [Found?] {
            let bindings = try PostgresBindings(keys.map(\.appID), keys.map(\.appUserID), resolution)
            var found = [Found?](repeating: nil, count: keys.count)
            let rows = try await connection.run(Batch.self, bindings, logger: logger) { row in
                let (position, customerID, body, lastSeen, stale, validUntil) = try row.decode(
                    (Int64, UUID, String?, Date, Bool, Date?).self)
                return (
                    Int(position) - 1,
                    Found(
                        customerID: customerID, body: body, lastSeen: lastSeen, lastSeenStale: stale,
                        validUntil: validUntil)
                )
            }
            for (index, row) in rows where found.indices.contains(index) { found[index] = row }
            return found
        }
    }

    /// The customer `appUserID` names in app `appID`, with its stored body if it still counts; `nil` for an id no
    /// customer has. `resolution`: how old `last_seen` may be before the read shows (and the caller records) the
    /// read's time.
    package static func find(
        appID: String, appUserID: String, resolution: TimeInterval, on connection: PostgresConnection, logger: Logger
    ) async throws -> Found? {
        let bindings = try bindings(appID: appID, appUserID: appUserID, resolution: resolution)
        return try await connection.run(Self.self, bindings, logger: logger) { try Found($0) }.first
    }

    /// The bindings of one read.
    package static func bindings(appID: String, appUserID: String, resolution: TimeInterval) throws
        -> PostgresBindings
    {
        try PostgresBindings(appID, appUserID, resolution)
    }

    /// What a read of a customer found (no row: no customer has the id).
    package struct Found: Sendable {
        package var customerID: UUID
        /// The stored document without `app_user_id` and `last_seen`, when it still counts; `nil` when the info must
        /// be rendered.
        package var body: String?
        /// The `last_seen` the info shows: the time of the read when the stored one was stale.
        package var lastSeen: Date
        /// Whether `last_seen` was older than the resolution: the reader records that the customer was seen.
        package var lastSeenStale: Bool
        /// When the stored info changes by itself; `nil` when nothing is ahead.
        package var validUntil: Date?

        package init(_ row: PostgresRow) throws {
            (customerID, body, lastSeen, lastSeenStale, validUntil) = try row.decode(
                (UUID, String?, Date, Bool, Date?).self)
        }

        package init(customerID: UUID, body: String?, lastSeen: Date, lastSeenStale: Bool, validUntil: Date?) {
            (self.customerID, self.body, self.lastSeen, self.lastSeenStale, self.validUntil) = (
                customerID, body, lastSeen, lastSeenStale, validUntil
            )
        }

        /// The info as JSON, for a read by `appUserID`, when a stored body counts.
        package func json(appUserID: String) -> String? {
            body.map { CustomerInfoText.assemble(body: $0, appUserID: appUserID, lastSeen: lastSeen) }
        }
    }
}
