import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// One customer's realized LTV (``CustomerLTVQuery``).
protocol CustomerLTVRepository: Sendable {
    /// The customer's realized LTV in `environment` as JSON: per currency as paid, and in `currency` when given.
    /// Throws ``EntitlementsError/customerNotFound(_:)`` for an id no customer has (creating nothing) and
    /// ``EntitlementsError/exchangeRateMissing(currency:reportingCurrency:day:)`` when a transaction has no loaded rate
    /// to `currency`.
    func ltv(appID: String, appUserID: String, environment: StoreEnvironment, currency: String?) async throws -> String
}

/// ``CustomerLTVRepository`` on PostgreSQL.
struct CustomerLTVPostgresRepository: CustomerLTVRepository {
    let client: PostgresClient
    let logger: Logger

    func ltv(appID: String, appUserID: String, environment: StoreEnvironment, currency: String?) async throws -> String
    {
        try await client.transaction(logger: logger) { connection in
            // One snapshot: the customer found is the one whose transactions are summed.
            try await connection.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            guard
                let customerID = try await CustomerRows.find(
                    appID: appID, appUserID: appUserID, on: connection, logger: logger)
            else { throw EntitlementsError.customerNotFound(appUserID) }
            let rows = try await connection.checkedQuery(
                PostgresQuery(
                    unsafeSQL: CustomerLTVQuery.sql,
                    binds: try PostgresBindings(appID, customerID, environment.rawValue, appUserID, currency)),
                logger: logger)
            for try await (json, missingCurrency, day) in rows.decode((String, String?, String?).self) {
                if let currency, let missingCurrency, let day {
                    throw EntitlementsError.exchangeRateMissing(
                        currency: missingCurrency, reportingCurrency: currency, day: day)
                }
                return json
            }
            throw EntitlementsError.customerNotFound(appUserID)
        }
    }
}
