import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// Applies verified store transactions to customers.
protocol PurchaseRepository: Sendable {
    /// Applies `request` for `appID` in one database transaction and answers with the presenter's customer info
    /// as committed. Idempotent per (store, transaction id); throws an ``EntitlementsError`` verdict with nothing
    /// written.
    func apply(_ request: ApplyRequest, appID: String) async throws -> ApplyResponse
}

/// ``PurchaseRepository`` on PostgreSQL.
struct PurchasePostgresRepository: PurchaseRepository {
    let client: PostgresClient
    /// Told about the presenter's change once it is committed (others learn it from the change notification).
    let cache: CustomerInfoCache
    let logger: Logger

    func apply(_ request: ApplyRequest, appID: String) async throws -> ApplyResponse {
        // Purchases are locked in one order, whatever order the proof listed them in.
        let order = request.transactions.indices.sorted { a, b in
            let (x, y) = (request.transactions[a], request.transactions[b])
            return (x.store.rawValue, x.originalTransactionID, x.purchaseDate, x.transactionID)
                < (y.store.rawValue, y.originalTransactionID, y.purchaseDate, y.transactionID)
        }
        let touched = TouchedCustomers()
        let (outcomes, info, presenterID) = try await client.transaction(logger: logger) { connection in
            let settings = try await SettingsRows.read(appID: appID, on: connection, logger: logger)
            let applier = PurchaseApplier(
                connection: connection, logger: logger, appID: appID, settings: settings, touched: touched)
            // The lock order of an apply: its purchases first (in one order), then the customers (the presenter's
            // and the purchases' owners, in id order). A purchase cannot change owner while it is locked, so every
            // customer the apply may change is known, and locked, before it changes anything.
            var named: UUID?
            if let user = request.appUserID {
                named = try await CustomerRows.customerFor(
                    appID: appID, appUserID: user, on: connection, logger: logger)
            }
            // Each store product is looked up once per apply: a batch of store notifications is mostly one product.
            var products: [String: CatalogProduct?] = [:]
            var productOf = [CatalogProduct?](repeating: nil, count: request.transactions.count)
            var rows = [PurchaseRow?](repeating: nil, count: request.transactions.count)
            for index in order {
                let transaction = request.transactions[index]
                let productKey = "\(transaction.store.rawValue) \(transaction.storeProductID)"
                if let known = products[productKey] {
                    productOf[index] = known
                } else {
                    productOf[index] = try await CatalogLookup.product(
                        appID: appID, store: transaction.store, storeProductID: transaction.storeProductID,
                        on: connection, logger: logger)
                    products[productKey] = .some(productOf[index])
                }
                rows[index] = try await applier.lockPurchase(transaction, product: productOf[index], for: named)
            }
            var presenter: Presenter?
            if let user = request.appUserID {
                // Resolved again under the lock: an alias merged meanwhile names its new customer, and the purchases
                // inserted for the old one are rolled back and the apply runs again.
                guard
                    let customerID = try await CustomerRows.lockCurrent(
                        appID: appID, appUserID: user, create: true, alsoLocking: rows.compactMap { $0?.customerID },
                        on: connection, logger: logger)
                else { throw CustomerRowsError.notCreated }
                guard customerID == named else {
                    throw TransactionRestart(reason: "the customer was merged into another while the apply waited")
                }
                let namesAccount = request.transactions.contains {
                    $0.appAccountToken != nil || $0.obfuscatedAccountID != nil
                }
                let aliases =
                    namesAccount ? try await CustomerRows.aliases(of: customerID, on: connection, logger: logger) : []
                presenter = Presenter(
                    customerID: customerID, appUserID: user, deviceID: request.deviceID, aliases: aliases)
            }
            var outcomes = [TransactionOutcome?](repeating: nil, count: request.transactions.count)
            for index in order {
                outcomes[index] = try await applier.apply(
                    request.transactions[index], product: productOf[index], presenter: presenter, row: rows[index])
            }
            var info: String?
            if let presenter {
                try await CustomerRows.touch(presenter.customerID, on: connection, logger: logger)
                info = try await CustomerInfoQuery.render(
                    appID: appID, appUserID: presenter.appUserID, on: connection, logger: logger)?.json
            }
            return (outcomes.compactMap { $0 }, info, presenter?.customerID)
        }
        // Read-your-writes for this replica's callers, before the change notification arrives: the presenter and,
        // for store news, the owners it changed.
        cache.invalidate(customerIDs: touched.all.union(presenterID.map { [$0] } ?? []))
        let customer = try info.map { try JSONBody.decode(CustomerInfo.self, from: Data($0.utf8)) }
        return ApplyResponse(customer: customer, outcomes: outcomes)
    }
}
