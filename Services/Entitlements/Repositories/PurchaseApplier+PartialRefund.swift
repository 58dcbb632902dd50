import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

extension PurchaseApplier {
    /// Applies a refund of some units of a multi-quantity purchase that the store does not take back whole (Google
    /// Play's quantity-based partial refunds): the store's running total `refunded` (units refunded so far) is above
    /// the purchase's (``PurchaseRow/refundedQuantity``), so the difference is news. The purchase stays in force.
    ///
    /// A consumable's balance loses the credited units those store units stand for (its credit divided evenly over
    /// the purchase's quantity), but never goes below zero: units the customer already spent cannot be taken back,
    /// and the event says how many (`unrecovered_quantity`). The purchase's row is locked (``lockPurchase``), so of
    /// two deliveries of the same refund at once (a notification and a poll, two replicas) the second finds the
    /// running total reached and does nothing; `entitlements.partial_refunds` keeps each refund once, keyed by the
    /// running total it reached. Counts a refund and writes a `refund` event with the store units refunded
    /// (`refunded_quantity`) and the units taken back (`quantity`, with the new `balance`).
    func refundUnits(_ row: inout PurchaseRow, through refunded: Int, transaction: StoreTransaction, appUserID: String?)
        async throws
    {
        let store: String = row.store.rawValue
        let units = refunded - row.refundedQuantity
        let quantity = max(transaction.quantity, 1)
        // What these units were credited as; what earlier refunds took back is not owed again.
        let owed: Int64
        if let credited = row.credited, credited > 0 {
            let through = credited * Int64(refunded) / Int64(quantity)
            let before = credited * Int64(row.refundedQuantity) / Int64(quantity)
            owed = max(through - before, 0)
        } else {
            owed = 0
        }
        var clawback: Int64 = 0
        if owed > 0, let productID = row.productID {
            let balance = try await Ledger.balance(
                customerID: row.customerID, productID: productID, on: connection, logger: logger)
            clawback = min(owed, max(balance, 0))
        }
        let clawed: Int64? = row.credited == nil ? nil : (row.clawedBack ?? 0) + clawback
        let unrecovered = owed - clawback
        let reason: String = transaction.revocationReason?.rawValue ?? RevocationReason.other.rawValue
        try await connection.run(
            """
            WITH purchase AS (
                UPDATE entitlements.purchases SET refunded_quantity = \(refunded), clawed_back = \(clawed),
                    updated_at = now()
                WHERE store = \(store) AND original_transaction_id = \(row.originalTransactionID)
                RETURNING customer_id, app_id
            ), kept AS (
                INSERT INTO entitlements.partial_refunds (
                    store, original_transaction_id, refunded_through, app_id, customer_id, transaction_id, units,
                    clawed_back, unrecovered)
                SELECT \(store), \(row.originalTransactionID), \(refunded), app_id, customer_id,
                       \(transaction.transactionID), \(units), \(clawback), \(unrecovered)
                FROM purchase
            )
            UPDATE entitlements.customers SET refund_count = refund_count + 1
            WHERE customer_id = (SELECT customer_id FROM purchase)
            """,
            logger: logger
        )
        var payload = Self.payload(transaction, productID: row.productID)
        payload.reason = reason
        payload.refundedQuantity = Int64(units)
        payload.unrecoveredQuantity = unrecovered
        payload.quantity = clawback
        if clawback > 0, let productID = row.productID {
            payload.balance = try await Ledger.post(
                -clawback, reason: .refund, appID: appID, customerID: row.customerID, productID: productID,
                store: store, transactionID: transaction.transactionID, on: connection, logger: logger)
        }
        try await EventOutbox.append(
            .refund, payload: payload, appID: appID, customerID: row.customerID, appUserID: appUserID,
            on: connection, logger: logger)
        row.refundedQuantity = refunded
        row.clawedBack = clawed
    }
}
