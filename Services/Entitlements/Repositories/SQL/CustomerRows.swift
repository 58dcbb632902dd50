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
        let rows = try await connection.run(CustomerFor.self, try PostgresBindings(appID, appUserID), logger: logger) {
            try $0.decode(UUID.self)
        }
        guard let id = rows.first else { throw CustomerRowsError.notCreated }
        return id
    }

    /// The customer `appUserID` names, or `nil`.
    static func find(appID: String, appUserID: String, on connection: PostgresConnection, logger: Logger)
        async throws -> UUID?
    {
        try await connection.run(Find.self, try PostgresBindings(appID, appUserID), logger: logger) {
            try $0.decode(UUID.self)
        }.first
    }

    /// Records that the customer was seen now.
    static func touch(_ customerID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run(Touch.self, try PostgresBindings(customerID), logger: logger)
    }

    /// Every id of a customer, oldest first.
    static func aliases(of customerID: UUID, on connection: PostgresConnection, logger: Logger) async throws
        -> [String]
    {
        let rows = try await connection.checkedQuery(
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

extension CustomerRows {
    private enum CustomerFor: PreparedSQL {
        static let sql = "SELECT entitlements.customer_for($1::text, $2::text)"
    }

    private enum Find: PreparedSQL {
        static let sql =
            "SELECT customer_id FROM entitlements.aliases WHERE app_id = $1::text AND app_user_id = $2::text"
    }

    private enum Touch: PreparedSQL {
        static let sql = "UPDATE entitlements.customers SET last_seen = now() WHERE customer_id = $1::uuid"
    }
}

/// `entitlements.customer_for` returned no row: cannot happen short of a broken schema.
struct CustomerRowsError: Error {
    static let notCreated = CustomerRowsError()
}
