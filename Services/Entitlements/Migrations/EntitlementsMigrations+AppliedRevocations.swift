import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// `applied_transactions_v1` says whether a revocation is in force here, so the verifier marks a revoked fact
    /// applied only once its revocation is (a purchase's apply that raced its refund's must not close the refund).
    static let appliedRevocations: [Migration] = [
        Migration(
            "0036_applied_transactions_revoked",
            sql: """
                -- Published for the verifier: a store transaction in this view is applied; `revoked` says whether it,
                -- or the purchase it belongs to, is revoked here (a revoked fact the view shows unrevoked is still
                -- to be applied). A column added at the end: readers of the previous release see the view unchanged.
                CREATE OR REPLACE VIEW entitlements.applied_transactions_v1 AS
                SELECT t.app_id, t.store, t.transaction_id, t.applied_at,
                    (t.revocation_date IS NOT NULL OR p.revoked_at IS NOT NULL) AS revoked
                FROM entitlements.transactions t
                JOIN entitlements.purchases p
                    ON p.store = t.store AND p.original_transaction_id = t.original_transaction_id;
                """
        )
    ]
}
