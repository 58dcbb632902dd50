import ShopkeeperDatabase

extension SubscriptionsMigrations {
    /// The rule of when a period's access ended (`subscriptions.period_end`: its end, or its refund or revocation when
    /// earlier and not reversed), published once with the periods so the charts of other schemas read it rather than
    /// write it again.
    static let publishedPeriodEnds: [Migration] = [
        Migration(
            "0010_published_period_ends",
            sql: """
                -- Published for entitlements' charts (MRR, retention, trial conversion, churn): `access_ends_at`, when
                -- the period's access ended by subscriptions.period_end (a column added at the end: readers are
                -- unaffected). A period whose access ends at or before its start (revoked at once) never counts.
                CREATE OR REPLACE VIEW subscriptions.periods_v1 AS
                SELECT app_id, store, original_transaction_id, transaction_id, product_id, store_product_id,
                       period_type, starts_at, ends_at, revoked_at, revocation_reason, revocation_reversed_at,
                       subscriptions.period_end(ends_at, revoked_at, revocation_reversed_at) AS access_ends_at
                FROM subscriptions.periods;
                """
        )
    ]
}
