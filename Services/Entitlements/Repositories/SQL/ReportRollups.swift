import ShopkeeperReports

/// The daily summaries of the entitlements service's reports (``DailyRollup``): sales and usage from the applied
/// store transactions, consumables from the ledger.
///
/// A sale is an applied transaction the customer bought (not one shared by a family member), counted on its purchase
/// date: a purchase when it is the first transaction of its purchase (transaction id = original transaction id), a
/// renewal otherwise. A refund is counted once, on the transaction whose refund revoked its purchase, on the day of the
/// refund, unless the store reversed it. Amounts are the store's own price fields (milliunits of the currency; Apple's
/// price of a consumable is that of the whole quantity).
enum ReportRollups {
    static let watermarks = "entitlements.report_rollups"

    /// The UTC days of the transactions changed at or above the watermark (sales and usage).
    static let transactionDays = """
        SELECT DISTINCT v.day::text FROM entitlements.transactions t
        CROSS JOIN LATERAL (
            VALUES (entitlements.utc_day(t.purchase_date)), (entitlements.utc_day(t.revocation_date))
        ) AS v(day)
        WHERE t.app_id = $1::text AND (t.changed_tx >= $2::text::xid8 OR $3::boolean) AND v.day IS NOT NULL
        """

    /// Sales per day, environment, store, product, storefront and currency.
    static let sales = DailyRollup(
        name: "sales", table: "entitlements.report_sales_days", watermarks: watermarks,
        changedDays: transactionDays,
        select: """
            SELECT $1::text, f.day, f.environment, f.store, p.product_id, f.store_product_id, f.storefront, f.currency,
                   count(*) FILTER (WHERE f.sale AND f.transaction_id = f.original_transaction_id),
                   count(*) FILTER (WHERE f.sale AND f.transaction_id <> f.original_transaction_id),
                   coalesce(sum(f.quantity) FILTER (WHERE f.sale), 0),
                   coalesce(sum(f.price_milliunits) FILTER (WHERE f.sale), 0),
                   count(*) FILTER (WHERE NOT f.sale),
                   coalesce(sum(f.price_milliunits) FILTER (WHERE NOT f.sale), 0)
            FROM (
                SELECT d.day, true AS sale, t.*
                FROM unnest($2::text[]::date[]) AS d(day)
                JOIN entitlements.transactions t ON t.app_id = $1::text
                    AND t.purchase_date >= entitlements.utc_start(d.day)
                    AND t.purchase_date < entitlements.utc_start(d.day + 1)
                UNION ALL
                SELECT d.day, false AS sale, t.*
                FROM unnest($2::text[]::date[]) AS d(day)
                JOIN entitlements.transactions t ON t.app_id = $1::text
                    AND t.revocation_date >= entitlements.utc_start(d.day)
                    AND t.revocation_date < entitlements.utc_start(d.day + 1)
                    AND (t.revocation_reversed_at IS NULL OR t.revocation_reversed_at < t.revocation_date)
            ) f
            LEFT JOIN entitlements.purchases p
                ON p.store = f.store AND p.original_transaction_id = f.original_transaction_id
            WHERE f.ownership_type = 'purchased'
            GROUP BY f.day, f.environment, f.store, p.product_id, f.store_product_id, f.storefront, f.currency
            """)

    /// Sales per day, environment, product and the app version each purchase was first presented from.
    static let usage = DailyRollup(
        name: "usage", table: "entitlements.report_usage_days", watermarks: watermarks,
        changedDays: transactionDays,
        select: """
            SELECT $1::text, d.day, t.environment, p.product_id, t.store_product_id, p.app_version,
                   count(*) FILTER (WHERE t.transaction_id = t.original_transaction_id),
                   count(*) FILTER (WHERE t.transaction_id <> t.original_transaction_id),
                   coalesce(sum(t.quantity), 0)
            FROM unnest($2::text[]::date[]) AS d(day)
            JOIN entitlements.transactions t ON t.app_id = $1::text
                AND t.purchase_date >= entitlements.utc_start(d.day)
                AND t.purchase_date < entitlements.utc_start(d.day + 1)
            LEFT JOIN entitlements.purchases p
                ON p.store = t.store AND p.original_transaction_id = t.original_transaction_id
            WHERE t.ownership_type = 'purchased'
            GROUP BY d.day, t.environment, p.product_id, t.store_product_id, p.app_version
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
            JOIN entitlements.ledger l ON l.app_id = $1::text
                AND l.created_at >= entitlements.utc_start(d.day) AND l.created_at < entitlements.utc_start(d.day + 1)
            WHERE l.reason IN ('purchase', 'consume', 'refund', 'refund_reversed')
            GROUP BY d.day, l.product_id
            """)
}
