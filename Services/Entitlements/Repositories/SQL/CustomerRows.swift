import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// The statements about customers that several repositories share.
enum CustomerRows {
    /// The customer `appUserID` names, created on first sight (`entitlements.customer_for`).
    static func customerFor(
        appID: String, appUserID: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> UUID {
        let rows = try await connection.query(
            "SELECT entitlements.customer_for(\(appID), \(appUserID))", logger: logger)
        for try await id in rows.decode(UUID.self) { return id }
        throw CustomerRowsError.notCreated
    }

    /// The customer `appUserID` names, or `nil`.
    static func find(appID: String, appUserID: String, on connection: PostgresConnection, logger: Logger)
        async throws -> UUID?
    {
        let rows = try await connection.query(
            """
            SELECT customer_id FROM entitlements.aliases WHERE app_id = \(appID) AND app_user_id = \(appUserID)
            """,
            logger: logger
        )
        for try await id in rows.decode(UUID.self) { return id }
        return nil
    }

    /// Locks customers' rows, in id order so that two transactions locking the same pair cannot deadlock.
    static func lock(_ customerIDs: [UUID], on connection: PostgresConnection, logger: Logger) async throws {
        let ids = Array(Set(customerIDs))
        try await connection.run(
            """
            SELECT 1 FROM entitlements.customers WHERE customer_id = ANY(\(ids)) ORDER BY customer_id FOR UPDATE
            """,
            logger: logger
        )
    }

    /// Records that the customer was seen now.
    static func touch(_ customerID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run(
            "UPDATE entitlements.customers SET last_seen = now() WHERE customer_id = \(customerID)", logger: logger)
    }

    /// Every id of a customer, oldest first.
    static func aliases(of customerID: UUID, on connection: PostgresConnection, logger: Logger) async throws
        -> [String]
    {
        let rows = try await connection.query(
            """
            SELECT app_user_id FROM entitlements.aliases WHERE customer_id = \(customerID)
            ORDER BY created_at, app_user_id
            """,
            logger: logger
        )
        var found: [String] = []
        for try await id in rows.decode(String.self) { found.append(id) }
        return found
    }
}

/// `entitlements.customer_for` returned no row: cannot happen short of a broken schema.
struct CustomerRowsError: Error {
    static let notCreated = CustomerRowsError()
}
