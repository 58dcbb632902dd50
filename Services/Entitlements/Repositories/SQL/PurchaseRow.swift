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
    /// The type it was recorded with: the catalog's, else the store's; `nil` when neither said (recorded `unknown`).
    var productType: ProductType?
    var environment: String
    var expiresDate: Date?
    var credited: Int64?
    var revokedAt: Date?
    /// When the store reversed a refund or revocation of it: a revocation dated at or before it is the reversed one.
    var revocationReversedAt: Date?
    /// The consumable units its refund took back (at most what was left of them); `nil` when none.
    var clawedBack: Int64?
    /// Units of a multi-quantity purchase refunded so far without revoking it (Google Play's quantity-based partial
    /// refunds, ``StoreTransaction/refundedQuantity``).
    var refundedQuantity: Int = 0
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
    /// A new purchase is recorded whole by the same statement (``Insert``): its first store transaction, `deviceID`
    /// as the first device it was presented from (``PurchaseRow/inserted`` says so; an existing purchase leaves both
    /// to the caller), a consumable's units credited (the ledger line and the balance; ``PurchaseRow/credited`` is
    /// set) unless the store reports it revoked or reinstated, and its event (`payload`: the part every purchase
    /// event carries; the statement adds the product, the units and the balance). One round trip for every first
    /// purchase.
    static func insertOrLock(
        _ transaction: StoreTransaction, appID: String, customerID: UUID, deviceID: String?, product: CatalogProduct?,
        appVersion: String?, appUserID: String?, payload: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> PurchaseRow? {
        let rows = try await connection.run(
            Insert.self,
            try Insert.bindings(
                transaction, appID: appID, customerID: customerID, deviceID: deviceID, product: product,
                appVersion: appVersion, appUserID: appUserID, payload: payload),
            logger: logger
        ) { try $0.decode((UUID, String, Int64?).self) }
        if let (_, type, credited) = rows.first {
            return PurchaseRow(
                store: transaction.store, originalTransactionID: transaction.originalTransactionID,
                customerID: customerID, productID: product?.productID, productType: ProductType(rawValue: type),
                environment: transaction.environment.rawValue, expiresDate: transaction.expiresDate,
                credited: credited, revokedAt: transaction.revocationDate, revocationReversedAt: nil, clawedBack: nil,
                previousOwners: [], inserted: true)
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
        ) { try $0.decode((UUID, String?, String, String, Date?, Int64?, Date?, Date?, Int64?, [UUID], Int).self) }
        for (customer, product, type, environment, expires, credited, revoked, reversed, clawed, previous, refunded)
            in rows
        {
            return PurchaseRow(
                store: store, originalTransactionID: originalTransactionID, customerID: customer, productID: product,
                productType: ProductType(rawValue: type), environment: environment, expiresDate: expires,
                credited: credited,
                revokedAt: revoked, revocationReversedAt: reversed, clawedBack: clawed, refundedQuantity: refunded,
                previousOwners: previous, inserted: false)
        }
        return nil
    }

    /// The purchase, and when it is new its transaction, its first device, its credit and its event, deciding its
    /// type, units and event from the catalog's product (`$6` id, `$7` type, `$22` consumable quantity; NULL when the
    /// catalog does not know it) and the store's type of the transaction (`$25`); a consumable is credited only when
    /// `$26`, and `$24` is the event's payload without the product. The statement is
    /// `entitlements.insert_purchase_v1` (``EntitlementsMigrations/newPurchaseApply``, where the rules are), which the
    /// one-round-trip apply (``NewPurchaseApply``) calls too. Answers the new row's customer, type and credited units;
    /// no row when the purchase existed.
    enum Insert: PreparedSQL {
        static func bindings(
            _ transaction: StoreTransaction, appID: String, customerID: UUID, deviceID: String?,
            product: CatalogProduct?, appVersion: String?, appUserID: String?, payload: String
        ) throws -> PostgresBindings {
            let reason: String? =
                transaction.revocationReason?.rawValue ?? (transaction.revocationDate != nil ? "other" : nil)
            let credits = transaction.revocationDate == nil && transaction.revocationReversedAt == nil
            return try PostgresBindings(
                transaction.store.rawValue, transaction.originalTransactionID, appID, customerID,
                transaction.storeProductID, product?.productID, product?.type?.rawValue,
                transaction.environment.rawValue,
                transaction.ownershipType.rawValue, transaction.originalPurchaseDate ?? transaction.purchaseDate,
                transaction.transactionID, transaction.quantity, transaction.expiresDate, transaction.revocationDate,
                reason, appVersion, transaction.purchaseDate, transaction.priceMilliunits, transaction.currency,
                transaction.storefront, deviceID, product?.consumableQuantity, appUserID, payload,
                transaction.type?.rawValue, credits)
        }

        static let sql = """
            SELECT * FROM entitlements.insert_purchase_v1(
                $1::text, $2::text, $3::text, $4::uuid, $5::text, $6::text, $7::text, $8::text, $9::text,
                $10::timestamptz, $11::text, $12::bigint, $13::timestamptz, $14::timestamptz, $15::text, $16::text,
                $17::timestamptz, $18::bigint, $19::text, $20::text, $21::text, $22::bigint, $23::text, $24::text,
                $25::text, $26::boolean)
            """
    }

    private enum Lock: PreparedSQL {
        static let sql = """
            SELECT customer_id, product_id, product_type, environment, expires_date, credited, revoked_at,
                   revocation_reversed_at, clawed_back, previous_owners, refunded_quantity
            FROM entitlements.purchases
            WHERE store = $1::text AND original_transaction_id = $2::text AND app_id = $3::text
            FOR UPDATE
            """
    }
}
