import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStoredCustomerInfo

/// A customer's info as rendered JSON, with its entity tag.
struct CustomerInfoDocument: Sendable {
    var json: String
    /// A strong entity tag of `json`.
    var etag: String

    init(json: String) {
        self.json = json
        self.etag = CustomerInfoText.etag(of: json)
    }
}

/// Reads customers.
protocol CustomerRepository: Sendable {
    /// The info of the customer `appUserID` names; for an id no customer has, an empty document
    /// (``CustomerInfo/unknown(appUserID:)``), creating nothing: a read must not let anyone holding the public
    /// key fill the database with customers.
    func info(appID: String, appUserID: String) async throws -> CustomerInfoDocument
}

/// ``CustomerRepository`` on PostgreSQL: rendered info kept in ``CustomerInfoCache`` (memory, a second at most) and
/// in the database (`entitlements.customer_documents`, until something it shows changes), so that the usual read,
/// an app launch, is one row read.
struct CustomerPostgresRepository: CustomerRepository {
    let client: PostgresClient
    let cache: CustomerInfoCache
    /// Writes `last_seen` of customers read from a stored document (the gateway's reads have their own).
    let lastSeen: LastSeenRecorder
    let logger: Logger
    /// How stale `last_seen` may get before a read refreshes it (reads in between write nothing).
    var lastSeenResolution: TimeInterval { lastSeen.resolution }

    func info(appID: String, appUserID: String) async throws -> CustomerInfoDocument {
        let key = CustomerInfoCache.Key(appID: appID, appUserID: appUserID)
        if let cached = cache.lookup(key) { return cached }
        let ticket = cache.ticket()
        return try await client.withConnection { connection in
            guard
                let found = try await StoredCustomerInfoRead.find(
                    appID: appID, appUserID: appUserID, resolution: lastSeenResolution, on: connection,
                    logger: logger)
            else {
                // Unknown ids: nothing is touched, nothing created.
                return try Self.unknown(appUserID)
            }
            if let json = found.json(appUserID: appUserID) {
                // The stored document, showing this read's time when `last_seen` was stale: written in a batch.
                if found.lastSeenStale { lastSeen.record(found.customerID) }
                let document = CustomerInfoDocument(json: json)
                cache.store(
                    document, for: key, customerID: found.customerID, nextChange: found.validUntil, ticket: ticket)
                return document
            }
            // Nothing stored that still counts: rendered (and stored for the next read), showing the `last_seen` the
            // read found, as a stored read does (this read's time when it was stale: written in a batch), so a cold
            // read is one statement more than a stored one, not two writes.
            guard
                let rendered = try await CustomerInfoQuery.renderDocument(
                    appID: appID, appUserID: appUserID, on: connection, logger: logger)
            else { return try Self.unknown(appUserID) }
            if found.lastSeenStale { lastSeen.record(found.customerID) }
            let document = CustomerInfoDocument(
                json: CustomerInfoText.assemble(body: rendered.body, appUserID: appUserID, lastSeen: found.lastSeen))
            cache.store(
                document, for: key, customerID: rendered.customerID, nextChange: rendered.nextChange, ticket: ticket)
            return document
        }
    }

    private static func unknown(_ appUserID: String) throws -> CustomerInfoDocument {
        let empty = try JSONBody.encode(CustomerInfo.unknown(appUserID: appUserID))
        return CustomerInfoDocument(json: String(decoding: empty, as: UTF8.self))
    }
}
