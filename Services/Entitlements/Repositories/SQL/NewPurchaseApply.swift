import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// The apply of a purchase seen for the first time in one call of `entitlements.apply_new_purchase_v1`
/// (``EntitlementsMigrations/newPurchaseApply``), its own transaction: the start with the customer locks and the
/// insert that records the purchase whole, the same functions the full apply (``PurchasePostgresRepository``) calls
/// in its transaction (``ApplyStart/Statement``, ``PurchaseRow/Insert``). The customer's info is then rendered and
/// stored by a second statement (``CustomerInfoQuery/render(appID:appUserID:storing:touching:plainFirst:on:logger:)``).
///
/// It handles a purchase of a consumable, a non-consumable or a product the catalog does not know (``handles(_:)``):
/// anything else the function declines before writing, answering no row: a purchase that exists (or was inserted by
/// someone else meanwhile), a subscription (its trial's conversion is the apply's step), a test purchase the app does
/// not accept, a customer merged while the call waited for its lock. The caller then runs the apply in full, which
/// says why it refuses what it refuses. Declining may leave the presenter's customer created, as the apply would.
enum NewPurchaseApply {
    /// Whether `request` may be what the function handles: one transaction presented by a customer, which names no
    /// app account (the apply checks those against the customer's aliases) and which the store reports neither
    /// revoked, partly refunded, nor reinstated. The function decides the rest.
    static func handles(_ request: ApplyRequest) -> Bool {
        guard request.appUserID != nil, request.transactions.count == 1, let transaction = request.transactions.first
        else { return false }
        return transaction.appAccountToken == nil && transaction.obfuscatedAccountID == nil
            && transaction.revocationDate == nil && transaction.revocationReason == nil
            && transaction.revocationReversedAt == nil && (transaction.refundedQuantity ?? 0) == 0
    }

    /// A purchase the function applied: its outcome, the presenter's customer and its info as committed.
    struct Applied: Sendable {
        var outcome: TransactionOutcome
        var customerID: UUID
        var info: String?
    }

    /// Applies `request` (``handles(_:)``) for `appID`, committed when this returns; `nil` when the function
    /// declined it or PostgreSQL aborted it to resolve a deadlock: nothing of the purchase was written, and the caller
    /// applies it in full.
    static func run(_ request: ApplyRequest, appID: String, client: PostgresClient, logger: Logger) async throws
        -> Applied?
    {
        guard handles(request), let appUserID = request.appUserID, let transaction = request.transactions.first else {
            return nil
        }
        let bindings = try PostgresBindings(
            appID, appUserID, transaction.store.rawValue, transaction.originalTransactionID,
            transaction.storeProductID, transaction.environment.rawValue, transaction.ownershipType.rawValue,
            transaction.originalPurchaseDate ?? transaction.purchaseDate, transaction.transactionID,
            transaction.quantity, transaction.expiresDate, request.appVersion, transaction.purchaseDate,
            transaction.priceMilliunits, transaction.currency, transaction.storefront, request.deviceID,
            try PurchaseApplier.eventPayloadOfNew(transaction), transaction.type?.rawValue)
        return try await client.withConnection { connection in
            let rows: [(outcome: TransactionOutcome, customerID: UUID)]
            do {
                rows = try await connection.run(Call.self, bindings, logger: logger) { row in
                    let (type, _, productID, customerID) = try row.decode((String, Int64?, String?, UUID).self)
                    let outcome = TransactionOutcome(
                        store: transaction.store, transactionID: transaction.transactionID, productID: productID,
                        outcome: PurchaseApplier.outcomeOfNew(productID: productID, type: ProductType(rawValue: type)))
                    return (outcome: outcome, customerID: customerID)
                }
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "40P01" {
                return nil
            }
            guard let applied = rows.first else { return nil }
            // Committed. The render is a second statement, in a transaction of its own: the stored info is a cache of
            // committed facts (every write forgets it through triggers), so a crash or an error between the two loses
            // nothing; the next read renders it, and the purchase presented again is already applied.
            let info = try await CustomerInfoQuery.render(
                appID: appID, appUserID: appUserID, touching: true, plainFirst: true, on: connection, logger: logger)
            return Applied(outcome: applied.outcome, customerID: applied.customerID, info: info?.json)
        }
    }

    /// The function's call: its nineteen arguments.
    enum Call: PreparedSQL {
        static let sql = """
            SELECT * FROM entitlements.apply_new_purchase_v1(
                $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::timestamptz, $9::text,
                $10::bigint, $11::timestamptz, $12::text, $13::timestamptz, $14::bigint, $15::text, $16::text,
                $17::text, $18::text, $19::text)
            """
    }
}
