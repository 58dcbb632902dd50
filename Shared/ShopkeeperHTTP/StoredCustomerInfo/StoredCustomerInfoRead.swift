import Crypto
import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase

/// A customer's stored info, read as every reader reads it: through `entitlements.stored_customer_info_v1`, which
/// the entitlements service publishes (migration 0025) and which alone says when a stored body still counts. The
/// entitlements service reads it before rendering; the gateway reads it to answer an app launch without calling the
/// service, and calls it only when nothing stored counts.
///
/// Bindings: `$1` the app id, `$2` the app user id, `$3` how old `last_seen` may be, in seconds, before a read shows
/// (and records) the time of the read instead (``LastSeenRecorder``).
package enum StoredCustomerInfoRead: PreparedSQL {
    package static let sql = """
        SELECT customer_id, body,
               CASE WHEN last_seen < now() - make_interval(secs => $3::float8) THEN now() ELSE last_seen END,
               last_seen < now() - make_interval(secs => $3::float8),
               valid_until
        FROM entitlements.stored_customer_info_v1($1::text, $2::text)
        """

    /// Several reads in one statement (the gateway's, under load): `$1` the app ids, `$2` the app user ids (arrays of
    /// the same length), `$3` the resolution. Each row starts with the 1-based position of its read; a read whose id
    /// no customer has has no row.
    package enum Batch: PreparedSQL {
        package static let sql = """
            SELECT r.n, f.customer_id, f.body,
                   CASE WHEN f.last_seen < now() - make_interval(secs => $3::float8) THEN now() ELSE f.last_seen END,
                   f.last_seen < now() - make_interval(secs => $3::float8),
                   f.valid_until
            FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(app_id, app_user_id, n)
            CROSS JOIN LATERAL entitlements.stored_customer_info_v1(r.app_id, r.app_user_id) AS f
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

/// Customer info as text: the stored body completed by the reader, and its entity tag.
package enum CustomerInfoText {
    /// The `Cache-Control` of every customer info answer: the client keeps it, and asks again with its tag.
    package static let cacheControl = "private, no-cache"

    /// The info: `app_user_id` and `last_seen` first, then the stored `body` (a JSON object) without its `{`. The same
    /// bytes as the SQL that renders it writes (`to_json` of the id, `entitlements.iso` of the time).
    package static func assemble(body: String, appUserID: String, lastSeen: Date) -> String {
        var json = "{\"app_user_id\":"
        json.reserveCapacity(body.utf8.count + appUserID.utf8.count + 64)
        json += JSONString.quoted(appUserID)
        json += ",\"last_seen\":\""
        json += timestamp(lastSeen)
        json += "\","
        json += body.dropFirst()
        return json
    }

    /// A strong entity tag of `json`: the first 12 bytes of its SHA-256, in hex, quoted.
    package static func etag(of json: String) -> String {
        let digest = SHA256.hash(data: Data(json.utf8))
        return "\"" + Data(digest.prefix(12)).hexString + "\""
    }

    /// `date` in UTC to the second, as `entitlements.iso` writes it (`2026-11-27T03:29:11Z`, fractions cut).
    package static func timestamp(_ date: Date) -> String {
        // Whole microseconds first (PostgreSQL's precision), so that a time on a second boundary stays on it.
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(daysSince1970: Int(days))
        var text = ""
        text.reserveCapacity(20)
        append(Int64(year), width: 4, to: &text)
        text += "-"
        append(Int64(month), width: 2, to: &text)
        text += "-"
        append(Int64(day), width: 2, to: &text)
        text += "T"
        append(secondOfDay / 3600, width: 2, to: &text)
        text += ":"
        append(secondOfDay / 60 % 60, width: 2, to: &text)
        text += ":"
        append(secondOfDay % 60, width: 2, to: &text)
        text += "Z"
        return text
    }

    private static func append(_ value: Int64, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
        text += digits
    }
}
