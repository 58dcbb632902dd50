import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// Google Play's quantity-based partial refunds: a purchase keeps the running total of its units refunded so far,
    /// and each partial refund applied is kept once (its running total is part of its key), with what it clawed back
    /// and what it could not (units already spent); the sales report counts each on its day, for its share of the price
    /// (``ReportRollups``).
    static let partialRefunds: [Migration] = [
        Migration(
            "0043_partial_refunds",
            sql: """
                -- Units of a multi-quantity purchase refunded so far without revoking it (the store's running total);
                -- a partial refund applies only what it adds to this.
                ALTER TABLE entitlements.purchases ADD COLUMN refunded_quantity integer NOT NULL DEFAULT 0;
                -- Each partial refund applied: `refunded_through` is the running total it brought the purchase to,
                -- `units` the store units it refunded, `clawed_back` the consumable units taken from the balance and
                -- `unrecovered` those already spent (a balance never goes below zero).
                CREATE TABLE entitlements.partial_refunds (
                    store text NOT NULL,
                    original_transaction_id text NOT NULL,
                    refunded_through integer NOT NULL,
                    app_id text NOT NULL,
                    customer_id uuid NOT NULL,
                    transaction_id text NOT NULL,
                    units integer NOT NULL CHECK (units > 0),
                    clawed_back bigint NOT NULL DEFAULT 0,
                    unrecovered bigint NOT NULL DEFAULT 0,
                    refunded_at timestamptz NOT NULL DEFAULT now(),
                    -- Written once: the sales summary's days are refreshed from the rows written since it was built.
                    changed_tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
                    PRIMARY KEY (store, original_transaction_id, refunded_through)
                );
                CREATE INDEX partial_refunds_by_app_and_time ON entitlements.partial_refunds (app_id, refunded_at);
                CREATE INDEX partial_refunds_changed ON entitlements.partial_refunds (app_id, changed_tx);
                """
        )
    ]
}
