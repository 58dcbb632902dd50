import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// The sales summary counts Google Play revenue estimated from the synced price history
    /// (`catalog.store_price_history_v1`, ``ReportRollups``), apart as well as in the totals; the summaries of apps that
    /// sold on Play are built again.
    static let playEstimates: [Migration] = [
        Migration(
            "0041_play_revenue_estimates",
            sql: """
                -- The part of revenue_milliunits and refunded_milliunits estimated from synced prices, not told by
                -- the store.
                ALTER TABLE entitlements.report_sales_days
                    ADD COLUMN estimated_revenue_milliunits bigint NOT NULL DEFAULT 0,
                    ADD COLUMN estimated_refunded_milliunits bigint NOT NULL DEFAULT 0;
                -- Without its watermark, a summary is built again from every fact at its next read.
                DELETE FROM entitlements.report_rollups
                WHERE rollup = 'sales'
                  AND app_id IN (SELECT DISTINCT app_id FROM entitlements.transactions WHERE store = 'play_store');
                """
        )
    ]
}
