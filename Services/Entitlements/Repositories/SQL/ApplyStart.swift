import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// What an apply reads before it takes any lock: the app's settings, the presenter's customer (created on first
/// sight: `entitlements.customer_for`), the current owners of the purchases the transactions belong to (read without
/// locks: the apply takes their customers' locks, then locks the purchases and checks the owners again), and the
/// catalog product each store product is sold as. One round trip for an apply of one transaction (a purchase), which
/// also takes the customer locks (``locked``); one more for each further purchase or store product of a batch, which
/// takes them afterwards.
struct ApplyStart: Sendable {
    var settings: AppEntitlementSettings
    /// The presenter's customer; `nil` without a presenter (store news).
    var customerID: UUID?
    var owners: [UUID]
    /// Per store product (``productKey(_:)``), the catalog's product or `nil` when the catalog does not know it.
    var products: [String: CatalogProduct?]
    /// Set when the read took the locks of ``customerID`` and ``owners`` too (an apply of one transaction): the
    /// presenter's customer read again once they were held (``CustomerLocks/lockThenFind``). `nil`: no lock was taken.
    var locked: Locked?

    /// What a read that took the locks found once they were held.
    struct Locked: Sendable {
        /// The customer the presenter's id names now (`nil`: no presenter).
        var customerID: UUID?
    }

    /// The key of a transaction's store product in ``products``.
    static func productKey(_ transaction: StoreTransaction) -> String {
        "\(transaction.store.rawValue) \(transaction.storeProductID)"
    }

    static func read(
        appID: String, appUserID: String?, transactions: [StoreTransaction], on connection: PostgresConnection,
        logger: Logger
    ) async throws -> ApplyStart {
        // Each purchase and each store product is looked up once, the first with the settings and the customer.
        var purchases: Set<String> = []
        var storeProducts: Set<String> = []
        var lookups: [StoreTransaction?] = []
        for transaction in transactions {
            let purchase = "\(transaction.store.rawValue) \(transaction.originalTransactionID)"
            let product = productKey(transaction)
            guard !purchases.contains(purchase) || !storeProducts.contains(product) else { continue }
            purchases.insert(purchase)
            storeProducts.insert(product)
            lookups.append(transaction)
        }
        if lookups.isEmpty { lookups = [nil] }

        var start = ApplyStart(settings: .defaults, customerID: nil, owners: [], products: [:])
        // One lookup: the same round trip takes the locks.
        let locking = lookups.count == 1
        for (index, transaction) in lookups.enumerated() {
            let first = index == 0
            let store: String? = transaction?.store.rawValue
            let bindings = try PostgresBindings(
                appID, first ? appUserID : nil, store, transaction?.originalTransactionID,
                transaction?.storeProductID, locking)
            let found: (Columns, Locked?)? = try await connection.run(Statement.self, bindings, logger: logger) { row in
                // Its last column: the presenter's customer once the locks were held (NULL when none was taken).
                let (policy, limit, sandbox, webhook, customer, owner, product, type, quantity, now) =
                    try row.decode((String?, Int?, Bool?, String?, UUID?, UUID?, String?, String?, Int?, UUID?).self)
                return (
                    (policy, limit, sandbox, webhook, customer, owner, product, type, quantity),
                    locking ? Locked(customerID: now) : nil
                )
            }.first
            guard let ((policy, limit, sandbox, webhook, customerID, owner, productID, type, quantity), locked) = found
            else { throw CustomerRowsError.notCreated }
            start.locked = locked
            if first {
                start.settings = SettingsRows.settings(policy: policy, limit: limit, sandbox: sandbox, webhook: webhook)
                if appUserID != nil, customerID == nil { throw CustomerRowsError.notCreated }
                start.customerID = customerID
            }
            if let owner, !start.owners.contains(owner) { start.owners.append(owner) }
            if let transaction {
                start.products[productKey(transaction)] = .some(
                    productID.map { id in
                        CatalogProduct(
                            productID: id, type: type.flatMap(ProductType.init(rawValue:)),
                            consumableQuantity: quantity.map(Int64.init))
                    })
            }
        }
        return start
    }

    /// ``Statement``'s columns but the last: the settings, the presenter's customer, the purchase's owner, the catalog
    /// product.
    private typealias Columns = (String?, Int?, Bool?, String?, UUID?, UUID?, String?, String?, Int?)

    /// `$1` app, `$2` app user id (NULL: no presenter, or not the first lookup), `$3`/`$4` a purchase's store and
    /// original transaction id, `$5` a store product id of that store (NULL keys: nothing to look up), `$6` whether to
    /// take the locks of the presenter's customer and the purchase's owner and read the presenter's customer again once
    /// they are held (the last column; NULL without). The owner is read before the locks: the apply locks the purchase
    /// and takes its owner's lock again if it changed meanwhile. The statement is `entitlements.apply_start_v1`
    /// (``EntitlementsMigrations/newPurchaseApply``), which the one-round-trip apply (``NewPurchaseApply``) calls too.
    enum Statement: PreparedSQL {
        static let sql = """
            SELECT * FROM entitlements.apply_start_v1($1::text, $2::text, $3::text, $4::text, $5::text, $6::boolean)
            """
    }
}
