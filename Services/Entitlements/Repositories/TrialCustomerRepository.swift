import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// Resolves an app user id to what the subscriptions service needs to decide about trials: the customer, the
/// customers merged into it, and its subscription purchases.
protocol TrialCustomerRepository: Sendable {
    /// The customer `appUserID` names, created on first sight when `create` is set; `nil` when there is none.
    func resolve(appID: String, appUserID: String, create: Bool) async throws -> TrialCustomer?

    /// Forgets the customer's stored and cached info once the subscriptions service started its trial, so that the
    /// caller's next read shows the trial (the subscription change relay does the same later, for every replica).
    func trialStarted(customerID: UUID) async throws
}

struct TrialCustomerPostgresRepository: TrialCustomerRepository {
    let client: PostgresClient
    let logger: Logger

    func resolve(appID: String, appUserID: String, create: Bool) async throws -> TrialCustomer? {
        try await client.withConnection { connection in
            let found: UUID? =
                create
                ? try await CustomerRows.customerFor(
                    appID: appID, appUserID: appUserID, on: connection, logger: logger)
                : try await CustomerRows.find(appID: appID, appUserID: appUserID, on: connection, logger: logger)
            guard let customerID = found else { return nil }
            let merged = try await connection.run(Merged.self, try PostgresBindings(customerID), logger: logger) {
                try $0.decode(UUID.self)
            }
            let purchases = try await connection.run(
                Subscriptions.self, try PostgresBindings(customerID), logger: logger
            ) { row in
                let (store, id) = try row.decode((String, String).self)
                return StorePlatform(rawValue: store).map { StorePurchaseKey(store: $0, originalTransactionID: id) }
            }
            return TrialCustomer(
                customerID: customerID, customerIDs: [customerID] + merged, purchases: purchases.compactMap { $0 })
        }
    }

    func trialStarted(customerID: UUID) async throws {
        try await client.withConnection { connection in
            try await connection.run(ForgetInfo.self, try PostgresBindings(customerID), logger: logger)
        }
    }

    private enum ForgetInfo: PreparedSQL {
        static let sql = """
            SELECT pg_notify('entitlements_customer_changed', $1::text), entitlements.forget_customer_document($1::uuid)
            """
    }

    private enum Merged: PreparedSQL {
        static let sql = "SELECT customer_id FROM entitlements.customers WHERE merged_into = $1::uuid"
    }

    private enum Subscriptions: PreparedSQL {
        static let sql = """
            SELECT store, original_transaction_id FROM entitlements.purchases
            WHERE customer_id = $1::uuid AND product_type = \(ProductType.autoRenewable.sql)
            """
    }
}
