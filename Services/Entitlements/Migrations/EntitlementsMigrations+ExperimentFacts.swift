import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// `transactions_v1`: every applied transaction with its price, for readers that count revenue outside this
    /// service (the catalog's experiment results); `customer_aliases_v1` gains when each id came to name its
    /// customer, so a reader can name a customer by the id it was first known by (experiment assignment).
    static let transactionsView: [Migration] = [
        Migration(
            "0038_transactions_view",
            sql: """
                -- Published: when each id came to address its customer. A column added at the end: readers of the
                -- previous release see the view unchanged.
                CREATE OR REPLACE VIEW entitlements.customer_aliases_v1 AS
                SELECT app_id, app_user_id, customer_id, created_at FROM entitlements.aliases;

                -- Published for the catalog (experiment results): each applied store transaction, its customer, when
                -- it was bought, its price (thousandths of `currency`; NULL when the store did not say) and whether
                -- it, or the purchase it belongs to, is refunded or revoked here.
                CREATE VIEW entitlements.transactions_v1 AS
                SELECT t.app_id, t.customer_id, t.store, t.transaction_id, t.original_transaction_id, t.environment,
                       t.purchase_date, t.price_milliunits, t.currency,
                       (t.revocation_date IS NOT NULL OR p.revoked_at IS NOT NULL) AS revoked
                FROM entitlements.transactions t
                JOIN entitlements.purchases p
                    ON p.store = t.store AND p.original_transaction_id = t.original_transaction_id;
                """
        )
    ]
}
