import Crypto
import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// A customer's info as rendered JSON, with its entity tag.
struct CustomerInfoDocument: Sendable {
    var json: String
    /// A strong entity tag of `json`.
    var etag: String

    init(json: String) {
        self.json = json
        let digest = SHA256.hash(data: Data(json.utf8))
        self.etag = "\"" + Data(digest.prefix(12)).hexString + "\""
    }
}

/// Reads customers.
protocol CustomerRepository: Sendable {
    /// The info of the customer `appUserID` names; for an id no customer has, an empty document
    /// (``CustomerInfo/unknown(appUserID:)``), creating nothing: a read must not let anyone holding the public
    /// key fill the database with customers.
    func info(appID: String, appUserID: String) async throws -> CustomerInfoDocument
}

/// ``CustomerRepository`` on PostgreSQL, with rendered info kept in ``CustomerInfoCache``.
struct CustomerPostgresRepository: CustomerRepository {
    let client: PostgresClient
    let cache: CustomerInfoCache
    let logger: Logger
    /// How stale `last_seen` may get before a read refreshes it (reads stay read-only in between).
    var lastSeenResolution: TimeInterval = 600

    func info(appID: String, appUserID: String) async throws -> CustomerInfoDocument {
        let key = CustomerInfoCache.Key(appID: appID, appUserID: appUserID)
        if let cached = cache.lookup(key) { return cached }
        let ticket = cache.ticket()
        return try await client.withConnection { connection in
            // An app launch after a while is the usual read: `last_seen` is refreshed first (at most every
            // `lastSeenResolution`; a read in between writes nothing), so the one rendering shows it. Unknown ids:
            // nothing is touched, nothing created.
            try await CustomerRows.touchIfStale(
                appID: appID, appUserID: appUserID, resolution: lastSeenResolution, on: connection, logger: logger)
            guard
                let rendered = try await CustomerInfoQuery.renderDocument(
                    appID: appID, appUserID: appUserID, on: connection, logger: logger)
            else {
                let empty = try JSONBody.encode(CustomerInfo.unknown(appUserID: appUserID))
                return CustomerInfoDocument(json: String(decoding: empty, as: UTF8.self))
            }
            let document = CustomerInfoDocument(json: rendered.json)
            cache.store(
                document, for: key, customerID: rendered.customerID, nextChange: rendered.nextChange, ticket: ticket)
            return document
        }
    }
}
