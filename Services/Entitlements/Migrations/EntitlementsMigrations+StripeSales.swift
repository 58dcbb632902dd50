import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// The sales and usage summaries of apps that sold through Stripe are built again: they counted the first period
    /// of a Stripe subscription (an invoice, named apart from its subscription) as a renewal (``ReportRollups``).
    static let stripeSales: [Migration] = [
        Migration(
            "0035_stripe_first_periods_are_purchases",
            sql: """
                -- Without its watermark, a summary is built again from every fact at its next read.
                DELETE FROM entitlements.report_rollups
                WHERE rollup IN ('sales', 'usage')
                  AND app_id IN (SELECT DISTINCT app_id FROM entitlements.transactions WHERE store = 'stripe');
                """
        )
    ]
}
