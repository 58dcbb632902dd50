import Crypto
import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase

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
    /// The info of the customer `appUserID` names, creating the customer on first sight.
    func info(appID: String, appUserID: String) async throws -> CustomerInfoDocument
}

/// ``CustomerRepository`` on PostgreSQL.
struct CustomerPostgresRepository: CustomerRepository {
    let client: PostgresClient
    let logger: Logger
    /// How stale `last_seen` may get before a read refreshes it (reads stay read-only in between).
    var lastSeenResolution: TimeInterval = 600

    func info(appID: String, appUserID: String) async throws -> CustomerInfoDocument {
        try await client.withConnection { connection in
            if let (json, lastSeen) = try await CustomerInfoQuery.render(
                appID: appID, appUserID: appUserID, on: connection, logger: logger)
            {
                guard Date().timeIntervalSince(lastSeen) > lastSeenResolution else {
                    return CustomerInfoDocument(json: json)
                }
            }
            // First sight, or seen long ago: create or touch, then render what is now true.
            let customerID = try await CustomerRows.customerFor(
                appID: appID, appUserID: appUserID, on: connection, logger: logger)
            try await CustomerRows.touch(customerID, on: connection, logger: logger)
            guard
                let (json, _) = try await CustomerInfoQuery.render(
                    appID: appID, appUserID: appUserID, on: connection, logger: logger)
            else { throw EntitlementsError.customerNotFound(appUserID) }
            return CustomerInfoDocument(json: json)
        }
    }
}
