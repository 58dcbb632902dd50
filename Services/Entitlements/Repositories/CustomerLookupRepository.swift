import Foundation
import Logging
import PostgresNIO

/// What support looks up about customers: who they are, and why they have what they have.
protocol CustomerLookupRepository: Sendable {
    /// The app's customers `query` finds (``CustomerSearchQuery``), at most `limit`, as JSON.
    func search(appID: String, query: String, limit: Int) async throws -> String
    /// Why each of the customer's entitlements is active or not (``CustomerExplanationQuery``), as JSON; throws
    /// ``EntitlementsError/customerNotFound(_:)`` for an id no customer has, and creates nothing.
    func explanation(appID: String, appUserID: String) async throws -> String
}

/// ``CustomerLookupRepository`` on PostgreSQL.
struct CustomerLookupPostgresRepository: CustomerLookupRepository {
    let client: PostgresClient
    let logger: Logger

    func search(appID: String, query: String, limit: Int) async throws -> String {
        try await client.withConnection { connection in
            try await CustomerSearchQuery.render(
                appID: appID, query: query, limit: limit, on: connection, logger: logger)
        }
    }

    func explanation(appID: String, appUserID: String) async throws -> String {
        let json = try await client.withConnection { connection in
            try await CustomerExplanationQuery.render(
                appID: appID, appUserID: appUserID, on: connection, logger: logger)
        }
        guard let json else { throw EntitlementsError.customerNotFound(appUserID) }
        return json
    }
}
