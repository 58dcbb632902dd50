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
    func apply(_ request: ApplyRequest, appID: String) async throws -> CustomerAnswer<ApplyOutcomes>
}

/// ``PurchaseRepository`` on PostgreSQL.
struct PurchasePostgresRepository: PurchaseRepository {
    let client: PostgresClient
    /// Told about the presenter's change once it is committed (others learn it from the change notification).
    let cache: CustomerInfoCache
    let logger: Logger

    func apply(_ request: ApplyRequest, appID: String) async throws -> CustomerAnswer<ApplyOutcomes> {
        // A purchase seen for the first time (most of them) by one function call, then its render; whatever that
        // declines, in full below.
        if let applied = try await NewPurchaseApply.run(request, appID: appID, client: client, logger: logger) {
            cache.invalidate(customerIDs: [applied.customerID])
            return CustomerAnswer(ApplyOutcomes(outcomes: [applied.outcome]), customerJSON: applied.info)
        }
        // Purchases are locked in one order, whatever order the proof listed them in.
        let order = request.transactions.indices.sorted { a, b in
            let (x, y) = (request.transactions[a], request.transactions[b])
            return (x.store.rawValue, x.originalTransactionID, x.purchaseDate, x.transactionID)
                < (y.store.rawValue, y.originalTransactionID, y.purchaseDate, y.transactionID)
        }
        let touched = TouchedCustomers()
        let (outcomes, info, presenterID) = try await client.transaction(logger: logger, attempts: 8) { connection in
            // The settings, the presenter's customer, the purchases' owners and the catalog's products, at once.
            let start = try await ApplyStart.read(
                appID: appID, appUserID: request.appUserID, transactions: request.transactions, on: connection,
                logger: logger)
            let named = start.customerID
            // One writer per customer (``CustomerLocks``): before any row is locked or written, the apply takes the
            // locks of the presenter's customer and of the purchases' current owners, together and in one order.
            let involved = start.owners + (named.map { [$0] } ?? [])
            // Read again under the lock: an id merged into another customer meanwhile names its new customer. An
            // apply of one transaction took the locks with its first read.
            let now: UUID?
            if let locked = start.locked {
                now = locked.customerID
            } else {
                now = try await CustomerLocks.lockThenFind(
                    involved, appID: appID, appUserID: request.appUserID, on: connection, logger: logger)
            }
            guard now == named else {
                throw TransactionRestart(reason: "the customer was merged into another while the apply waited")
            }
            let locked = LockedCustomers(involved)
            // A restore of purchases bound to another install's anonymous id may make two customers one first.
            var accounts: RestoreAccounts?
            if request.source == .restore, let named, let user = request.appUserID,
                request.transactions.contains(where: { PurchaseAccount($0) != nil })
            {
                let resolved = try await RestoreAccounts.resolve(
                    request.transactions, presenter: named, appUserID: user, appID: appID, locked: locked,
                    on: connection, logger: logger)
                for customer in resolved.merged + [resolved.presenter] { touched.insert(customer) }
                accounts = resolved
            }
            let presenterCustomer = accounts?.presenter ?? named
            let ownedElsewhere = accounts?.ownedElsewhere ?? []
            let applier = PurchaseApplier(
                connection: connection, logger: logger, appID: appID, settings: start.settings,
                source: request.source, appVersion: request.appVersion, touched: touched)
            var productOf = [CatalogProduct?](repeating: nil, count: request.transactions.count)
            var rows = [PurchaseRow?](repeating: nil, count: request.transactions.count)
            for index in order {
                let transaction = request.transactions[index]
                productOf[index] = start.products[ApplyStart.productKey(transaction)] ?? nil
                if ownedElsewhere.contains(index) { continue }
                rows[index] = try await applier.lockPurchase(
                    transaction, product: productOf[index], for: presenterCustomer, appUserID: request.appUserID,
                    deviceID: request.deviceID)
                // A purchase someone else inserted or moved since the owners were read: its owner is locked now
                // if that needs no waiting, else the apply starts again with every lock taken in order.
                if let owner = rows[index]?.customerID {
                    try await locked.require([owner], on: connection, logger: logger)
                }
            }
            var presenter: Presenter?
            if let user = request.appUserID, let customerID = presenterCustomer {
                let namesAccount = request.transactions.contains {
                    $0.appAccountToken != nil || $0.obfuscatedAccountID != nil
                }
                let aliases =
                    namesAccount ? try await CustomerRows.aliases(of: customerID, on: connection, logger: logger) : []
                presenter = Presenter(
                    customerID: customerID, appUserID: user, deviceID: request.deviceID, aliases: aliases,
                    acceptedAccountTokens: accounts?.acceptedTokens ?? [])
            }
            var outcomes = [TransactionOutcome?](repeating: nil, count: request.transactions.count)
            // A request may name one purchase more than once (a batch of store notifications about it, a renewal
            // with its original): each later transaction of a purchase is applied to the row as the earlier ones
            // left it, read again, not to the snapshot locked before any was applied (a refund counted twice).
            var applied: Set<String> = []
            for index in order {
                let transaction = request.transactions[index]
                if ownedElsewhere.contains(index) {
                    outcomes[index] = TransactionOutcome(
                        store: transaction.store, transactionID: transaction.transactionID,
                        productID: productOf[index]?.productID, outcome: .ownedByOtherAccount)
                    continue
                }
                let purchase = "\(transaction.store.rawValue) \(transaction.originalTransactionID)"
                var row = rows[index]
                if applied.contains(purchase) {
                    row = try await PurchaseRow.lock(
                        store: transaction.store, originalTransactionID: transaction.originalTransactionID,
                        appID: appID, on: connection, logger: logger)
                }
                applied.insert(purchase)
                outcomes[index] = try await applier.apply(
                    transaction, product: productOf[index], presenter: presenter, row: row)
            }
            var info: String?
            if let presenter {
                // A customer that buys consumables and non-consumables only is plain (and most are): its shorter
                // render is tried first, which checks that for itself.
                let periodic = request.transactions.indices.contains { index in
                    let type =
                        productOf[index]?.type
                        ?? request.transactions[index].type.flatMap { ProductType(rawValue: $0.rawValue) }
                    return type == .autoRenewable || type == .nonRenewing
                }
                info = try await CustomerInfoQuery.render(
                    appID: appID, appUserID: presenter.appUserID, touching: true, plainFirst: !periodic,
                    on: connection, logger: logger)?.json
            }
            return (outcomes.compactMap { $0 }, info, presenter?.customerID)
        }
        // Read-your-writes for this replica's callers, before the change notification arrives: the presenter and,
        // for store news, the owners it changed.
        cache.invalidate(customerIDs: touched.all.union(presenterID.map { [$0] } ?? []))
        // The customer as rendered: the verifier passes the text on to the app as it is.
        return CustomerAnswer(ApplyOutcomes(outcomes: outcomes), customerJSON: info)
    }
}
