import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// Reads what happened to a customer.
protocol HistoryRepository: Sendable {
    /// The customer's info with its transactions, ledger lines, promotional grants, devices and events (see
    /// ``HistoryQuery``), read from one snapshot. Throws ``EntitlementsError/customerNotFound(_:)`` for an unknown
    /// id, and creates nothing.
    func history(appID: String, appUserID: String) async throws -> String
}

/// ``HistoryRepository`` on PostgreSQL.
struct HistoryPostgresRepository: HistoryRepository {
    let client: PostgresClient
    let logger: Logger

    func history(appID: String, appUserID: String) async throws -> String {
        try await client.transaction(logger: logger) { connection in
            // One snapshot for every statement, so the lists and the info agree with each other.
            try await connection.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            guard
                let customerID = try await CustomerRows.find(
                    appID: appID, appUserID: appUserID, on: connection, logger: logger),
                let (info, _) = try await CustomerInfoQuery.render(
                    appID: appID, appUserID: appUserID, storing: false, on: connection, logger: logger)
            else { throw EntitlementsError.customerNotFound(appUserID) }
            return try await HistoryQuery.render(customerID: customerID, info: info, on: connection, logger: logger)
        }
    }
}
