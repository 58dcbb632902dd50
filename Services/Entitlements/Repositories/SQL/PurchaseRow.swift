import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// A purchase row, read under its row lock.
struct PurchaseRow: Sendable {
    var store: StorePlatform
    var originalTransactionID: String
    var customerID: UUID
    var productID: String?
    var productType: String
    var environment: String
    var expiresDate: Date?
    var credited: Int64?
    var revokedAt: Date?
    /// When the store reversed a refund or revocation of it: a revocation dated at or before it is the reversed one.
    var revocationReversedAt: Date?
    /// The consumable units its refund took back (at most what was left of them); `nil` when none.
    var clawedBack: Int64?
    /// Customers it was transferred away from: only a restore moves it back to one of them.
    var previousOwners: [UUID]
    /// Whether this transaction just created the row.
    var inserted: Bool

    /// Whether the owner has something in force from it: not revoked, and not past its end.
    func isActive(now: Date = Date()) -> Bool {
        guard revokedAt == nil else { return false }
        guard let expiresDate else { return true }
        return expiresDate > now
    }
}

extension PurchaseRow {
    /// Inserts the purchase for `customerID` unless it exists; returns the row, locked either way (a new row is
    /// locked by its insert). `nil` when the purchase exists for another app.
    ///
    /// A new purchase is recorded whole by the same statement: its first store transaction, and `deviceID` as the
    /// first device it was presented from (``PurchaseRow/inserted`` says so; an existing purchase leaves both to the
    /// caller). One round trip instead of three for every first purchase.
    ///
    /// With `credit` (a consumable's first purchase, not revoked), the same statement credits its units too: the
    /// ledger line and the balance (``PurchaseRow/credited`` is set). With `event`, it writes the new purchase's event
    /// (a credit's `consumable_purchase` gets the balance put in).
    static func insertOrLock(
        _ transaction: StoreTransaction, appID: String, customerID: UUID, deviceID: String?, product: CatalogProduct?,
        type: String, appVersion: String?, credit: Int64?, event: InsertEvent?, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> PurchaseRow? {
        let store: String = transaction.store.rawValue
        let environment: String = transaction.environment.rawValue
        let ownership: String = transaction.ownershipType.rawValue
        let purchaseDate: Date = transaction.originalPurchaseDate ?? transaction.purchaseDate
        let productID: String? = product?.productID
        let reason: String? =
            transaction.revocationReason?.rawValue ?? (transaction.revocationDate != nil ? "other" : nil)
        let bindings = try PostgresBindings(
            store, transaction.originalTransactionID, appID, customerID, transaction.storeProductID, productID, type,
            environment, ownership, purchaseDate, transaction.transactionID, transaction.quantity,
            transaction.expiresDate, transaction.revocationDate, reason, appVersion, transaction.purchaseDate,
            transaction.priceMilliunits, transaction.currency, transaction.storefront, deviceID, credit,
            event?.appUserID, event?.payload, event?.type.rawValue)
        let inserted = try await connection.run(Insert.self, bindings, logger: logger) { try $0.decode(UUID.self) }
        if !inserted.isEmpty {
            return PurchaseRow(
                store: transaction.store, originalTransactionID: transaction.originalTransactionID,
                customerID: customerID, productID: productID, productType: type, environment: environment,
                expiresDate: transaction.expiresDate, credited: credit, revokedAt: transaction.revocationDate,
                revocationReversedAt: nil, clawedBack: nil, previousOwners: [], inserted: true)
        }
        return try await lock(
            store: transaction.store, originalTransactionID: transaction.originalTransactionID, appID: appID,
            on: connection, logger: logger)
    }

    /// The purchase, locked until the transaction ends; `nil` when this app has no such purchase.
    static func lock(
        store: StorePlatform, originalTransactionID: String, appID: String, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> PurchaseRow? {
        let storeName: String = store.rawValue
        let rows = try await connection.run(
            Lock.self, try PostgresBindings(storeName, originalTransactionID, appID), logger: logger
        ) { try $0.decode((UUID, String?, String, String, Date?, Int64?, Date?, Date?, Int64?, [UUID]).self) }
        for (customer, product, type, environment, expires, credited, revoked, reversed, clawed, previous) in rows {
            return PurchaseRow(
                store: store, originalTransactionID: originalTransactionID, customerID: customer, productID: product,
                productType: type, environment: environment, expiresDate: expires, credited: credited,
                revokedAt: revoked, revocationReversedAt: reversed, clawedBack: clawed, previousOwners: previous,
                inserted: false)
        }
        return nil
    }

    /// The event a new purchase's insert writes.
    struct InsertEvent: Sendable {
        var type: EventType
        /// The presenter's app user id.
        var appUserID: String?
        /// The payload (JSON); a credit's balance is put in by the statement.
        var payload: String
    }

    /// The purchase, and when it is new its transaction (`$17`-`$20`: the transaction's own purchase date, price,
    /// currency, storefront), its first device (`$21`, none when NULL), its credit (`$22` units, none when NULL) and
    /// its event (`$25` type, none when NULL; `$23` app user id, `$24` payload).
    private enum Insert: PreparedSQL {
        static let sql = """
            WITH purchase AS (
                INSERT INTO entitlements.purchases (
                    store, original_transaction_id, app_id, customer_id, store_product_id, product_id, product_type,
                    environment, ownership_type, purchase_date, latest_transaction_id, quantity, expires_date,
                    revoked_at, revocation_reason, app_version, credited)
                VALUES (
                    $1::text, $2::text, $3::text, $4::uuid, $5::text, $6::text, $7::text, $8::text, $9::text,
                    $10::timestamptz, $11::text, $12::bigint, $13::timestamptz, $14::timestamptz, $15::text, $16::text,
                    $22::bigint)
                ON CONFLICT (store, original_transaction_id) DO NOTHING
                RETURNING customer_id
            ), recorded AS (
                INSERT INTO entitlements.transactions (
                    store, transaction_id, original_transaction_id, app_id, customer_id, environment, store_product_id,
                    quantity, purchase_date, expires_date, price_milliunits, currency, storefront, ownership_type)
                SELECT $1::text, $11::text, $2::text, $3::text, purchase.customer_id, $8::text, $5::text, $12::bigint,
                       $17::timestamptz, $13::timestamptz, $18::bigint, $19::text, $20::text, $9::text
                FROM purchase
                ON CONFLICT (store, transaction_id) DO NOTHING
            ), device AS (
                INSERT INTO entitlements.purchase_devices (store, original_transaction_id, device_id, customer_id)
                SELECT $1::text, $2::text, $21::text, purchase.customer_id FROM purchase WHERE $21::text IS NOT NULL
                ON CONFLICT (store, original_transaction_id, device_id)
                DO UPDATE SET last_seen = now(), customer_id = excluded.customer_id
            ), \(Ledger.posting(
                app: "$3::text", customer: "$4::uuid", product: "$6::text", delta: "$22::bigint",
                reason: "'\(Ledger.Reason.purchase.rawValue)'", store: "$1::text", transaction: "$11::text",
                key: "NULL", source: "FROM purchase WHERE $22::bigint IS NOT NULL")), \(EventOutbox.appending(
                """
                SELECT $3::text, $4::uuid, $23::text, $25::text, $8::text,
                       $24::text::jsonb
                       || coalesce((SELECT jsonb_build_object('balance', b.balance) FROM balance b), '{}'::jsonb)
                FROM purchase WHERE $25::text IS NOT NULL
                """))
            SELECT customer_id FROM purchase
            """
    }

    private enum Lock: PreparedSQL {
        static let sql = """
            SELECT customer_id, product_id, product_type, environment, expires_date, credited, revoked_at,
                   revocation_reversed_at, clawed_back, previous_owners
            FROM entitlements.purchases
            WHERE store = $1::text AND original_transaction_id = $2::text AND app_id = $3::text
            FOR UPDATE
            """
    }
}
