import ShopkeeperReports

/// The daily summaries of the entitlements service's reports (``DailyRollup``): sales and usage from the applied
/// store transactions, consumables from the ledger. They hold today too (nothing in them changes with the time alone).
///
/// A sale is an applied transaction the customer bought (not one shared by a family member), counted on its purchase
/// date: a purchase when it is the first transaction of its purchase (transaction id = original transaction id; for
/// Stripe, whose subscription periods are invoices named apart from the subscription, the earliest of its
/// subscription), a renewal otherwise. A refund is counted once, on the transaction whose refund revoked its purchase, on the day of the
/// refund, unless the store reversed it. A quantity-based partial refund (Google Play's, `entitlements.partial_refunds`)
/// is a refund of its own, on its day, for its share of the price (its units of the quantity); the refund that revokes
/// such a purchase counts only the units the partial ones left. Amounts are the store's own price fields (milliunits of the currency; Apple's
/// price of a consumable is that of the whole quantity), or, for Google Play, which gives none, estimated from the
/// synced price history (see `purchasedTransactions`) and counted apart as estimated too.
enum ReportRollups {
    static let watermarks = "entitlements.report_rollups"

    /// The UTC days of the transactions changed at or above the watermark (sales and usage).
    static let transactionDays = """
        SELECT DISTINCT v.day::text FROM entitlements.transactions t
        CROSS JOIN LATERAL (
            VALUES (entitlements.utc_day(t.purchase_date)), (entitlements.utc_day(t.revocation_date))
        ) AS v(day)
        WHERE t.app_id = $1::text AND (t.changed_tx >= $2::text::xid8 OR $3::boolean) AND v.day IS NOT NULL
        UNION
        SELECT entitlements.utc_day(r.refunded_at)::text FROM entitlements.partial_refunds r
        WHERE r.app_id = $1::text AND (r.changed_tx >= $2::text::xid8 OR $3::boolean)
        """

    /// The units of the purchase of `t` that its partial refunds covered (0 without any).
    private static let partiallyRefundedUnits = """
        coalesce((SELECT sum(r.units) FROM entitlements.partial_refunds r
                  WHERE r.store = t.store AND r.original_transaction_id = t.original_transaction_id), 0)
        """

    /// Whether the transaction `t` is the first of its purchase (a purchase, not a renewal): its id is the original
    /// transaction id, or, at Stripe, no transaction of its subscription is earlier.
    private static let firstOfPurchase = """
        CASE WHEN t.transaction_id = t.original_transaction_id THEN true
                    WHEN t.store <> 'stripe' THEN false
                    ELSE NOT EXISTS (
                        SELECT 1 FROM entitlements.transactions e
                        WHERE e.store = t.store AND e.original_transaction_id = t.original_transaction_id
                          AND (e.purchase_date, e.transaction_id) < (t.purchase_date, t.transaction_id))
               END
        """

    /// The columns of the app's (`$1`) transactions the customer bought, with their purchase's product, that a sale or
    /// a refund is counted by. It ends in its `WHERE` clause, for the caller to narrow with `AND`.
    ///
    /// A Google Play transaction has no price (Play's purchase APIs give none): it is estimated from the price in
    /// force in the buyer's region (`storefront`, Play's region code) at the purchase time, as the catalog syncs
    /// recorded it (`catalog.store_price_history_v1`, read through `entitlements.play_price_in_force`, which finds none
    /// while the catalog has not migrated yet), times the quantity; `estimated_milliunits` is that estimate
    /// (0 for a price the store gave). With no price in force then (no sync had seen one), it stays `null`. Purchase
    /// times are kept to the second: a price is in force for a purchase when a sync saw it by the end of the
    /// purchase's second and before the sale was applied (`applied_at`), so a sync just after a sale never reprices it.
    ///
    /// `units` (an SQL expression; the whole quantity when `nil`) is the part of the quantity counted: amounts are
    /// prorated to it (a partial refund's units, what partial refunds left of a revoked purchase).
    private static func purchasedTransactions(units: String? = nil) -> String {
        let share = units.map { " * (\($0)) / greatest(t.quantity, 1)" } ?? ""
        return """
            t.environment, t.store, t.store_product_id, t.storefront,
                   CASE WHEN t.price_milliunits IS NULL AND e.currency IS NOT NULL THEN e.currency ELSE t.currency END
                       AS currency,
                   t.quantity, coalesce(t.price_milliunits, e.unit_milliunits * t.quantity)\(share) AS price_milliunits,
                   CASE WHEN t.price_milliunits IS NULL THEN coalesce(e.unit_milliunits * t.quantity, 0)\(share) ELSE 0 END
                       AS estimated_milliunits,
                   \(firstOfPurchase) AS first,
                   (SELECT p.product_id FROM entitlements.purchases p
                    WHERE p.store = t.store AND p.original_transaction_id = t.original_transaction_id) AS product_id
            FROM entitlements.transactions t
            LEFT JOIN LATERAL (
                SELECT p.currency, p.unit_milliunits
                FROM entitlements.play_price_in_force(
                    t.app_id, t.store_product_id, t.storefront, t.purchase_date, t.applied_at) p
                WHERE t.price_milliunits IS NULL AND t.store = 'play_store'
                OFFSET 0
            ) e ON true
            WHERE t.app_id = $1::text AND t.ownership_type = 'purchased'
            """
    }

    /// Sales per day, environment, store, product, storefront and currency.
    static let sales = DailyRollup(
        name: "sales", table: "entitlements.report_sales_days", watermarks: watermarks,
        changedDays: transactionDays,
        select: """
            SELECT $1::text, d.day, f.environment, f.store, f.product_id, f.store_product_id, f.storefront, f.currency,
                   count(*) FILTER (WHERE f.sale AND f.first),
                   count(*) FILTER (WHERE f.sale AND NOT f.first),
                   coalesce(sum(f.quantity) FILTER (WHERE f.sale), 0),
                   coalesce(sum(f.price_milliunits) FILTER (WHERE f.sale), 0),
                   count(*) FILTER (WHERE NOT f.sale),
                   coalesce(sum(f.price_milliunits) FILTER (WHERE NOT f.sale), 0),
                   coalesce(sum(f.estimated_milliunits) FILTER (WHERE f.sale), 0),
                   coalesce(sum(f.estimated_milliunits) FILTER (WHERE NOT f.sale), 0)
            FROM unnest($2::text[]::date[]) AS d(day)
            CROSS JOIN LATERAL (
                SELECT true AS sale, \(purchasedTransactions())
                  AND t.purchase_date >= entitlements.utc_start(d.day)
                  AND t.purchase_date < entitlements.utc_start(d.day + 1)
                UNION ALL
                SELECT false AS sale, \(purchasedTransactions(units: "t.quantity - \(partiallyRefundedUnits)"))
                  AND t.revocation_date >= entitlements.utc_start(d.day)
                  AND t.revocation_date < entitlements.utc_start(d.day + 1)
                  AND (t.revocation_reversed_at IS NULL OR t.revocation_reversed_at < t.revocation_date)
                UNION ALL
                SELECT pr.* FROM entitlements.partial_refunds r
                CROSS JOIN LATERAL (
                    SELECT false AS sale, \(purchasedTransactions(units: "r.units"))
                      AND t.store = r.store AND t.transaction_id = r.transaction_id
                ) pr
                WHERE r.app_id = $1::text AND r.refunded_at >= entitlements.utc_start(d.day)
                  AND r.refunded_at < entitlements.utc_start(d.day + 1)
                OFFSET 0
            ) f
            GROUP BY d.day, f.environment, f.store, f.product_id, f.store_product_id, f.storefront, f.currency
            """)

    /// Sales per day, environment, product and the app version each purchase was first presented from.
    static let usage = DailyRollup(
        name: "usage", table: "entitlements.report_usage_days", watermarks: watermarks,
        changedDays: transactionDays,
        select: """
            SELECT $1::text, d.day, t.environment, t.product_id, t.store_product_id, t.app_version,
                   count(*) FILTER (WHERE t.first),
                   count(*) FILTER (WHERE NOT t.first),
                   coalesce(sum(t.quantity), 0)
            FROM unnest($2::text[]::date[]) AS d(day)
            CROSS JOIN LATERAL (
                SELECT t.environment, t.store_product_id, t.quantity, \(firstOfPurchase) AS first,
                       p.product_id, p.app_version
                FROM entitlements.transactions t
                LEFT JOIN LATERAL (
                    SELECT p.product_id, p.app_version FROM entitlements.purchases p
                    WHERE p.store = t.store AND p.original_transaction_id = t.original_transaction_id
                    OFFSET 0
                ) p ON true
                WHERE t.app_id = $1::text AND t.ownership_type = 'purchased'
                  AND t.purchase_date >= entitlements.utc_start(d.day)
                  AND t.purchase_date < entitlements.utc_start(d.day + 1)
                OFFSET 0
            ) t
            GROUP BY d.day, t.environment, t.product_id, t.store_product_id, t.app_version
            """)

    /// Consumable units per day and product, from the ledger: credited by purchases, spent, and taken back by refunds
    /// (less what reversals of refunds gave back).
    static let consumables = DailyRollup(
        name: "consumables", table: "entitlements.report_consumable_days", watermarks: watermarks,
        changedDays: """
            SELECT DISTINCT entitlements.utc_day(l.created_at)::text FROM entitlements.ledger l
            WHERE l.app_id = $1::text AND (l.changed_tx >= $2::text::xid8 OR $3::boolean)
            """,
        select: """
            SELECT $1::text, d.day, l.product_id,
                   coalesce(sum(l.delta) FILTER (WHERE l.reason = 'purchase'), 0),
                   coalesce(-sum(l.delta) FILTER (WHERE l.reason = 'consume'), 0),
                   coalesce(-sum(l.delta) FILTER (WHERE l.reason IN ('refund', 'refund_reversed')), 0)
            FROM unnest($2::text[]::date[]) AS d(day)
            CROSS JOIN LATERAL (
                SELECT l.product_id, l.delta, l.reason FROM entitlements.ledger l
                WHERE l.app_id = $1::text AND l.reason IN ('purchase', 'consume', 'refund', 'refund_reversed')
                  AND l.created_at >= entitlements.utc_start(d.day)
                  AND l.created_at < entitlements.utc_start(d.day + 1)
                OFFSET 0
            ) l
            GROUP BY d.day, l.product_id
            """)
}
