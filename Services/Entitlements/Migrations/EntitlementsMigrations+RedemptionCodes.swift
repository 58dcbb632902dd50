import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// One-time codes that move a customer's web purchases to the customer who redeems them
    /// (``RedemptionRepository``).
    static let redemptionCodes: [Migration] = [
        Migration(
            "0034_redemption_codes",
            sql: """
                -- A code is kept only as the SHA-256 of its normalized text: the table never holds a usable code.
                -- It names the id it was issued for (`issued_to`), not a customer: at redemption the id's customer of
                -- that moment gives its web purchases, so merges and links in between are followed. Redeemed once:
                -- `redeemed_by` is the customer the purchases went to (a retry by that customer answers the same).
                CREATE TABLE entitlements.redemption_codes (
                    app_id text NOT NULL,
                    code_hash text NOT NULL,
                    issued_to text NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    expires_at timestamptz NOT NULL,
                    redeemed_at timestamptz,
                    redeemed_by uuid REFERENCES entitlements.customers (customer_id),
                    redeemed_by_app_user_id text,
                    moved integer,
                    PRIMARY KEY (app_id, code_hash),
                    CHECK ((redeemed_at IS NULL) = (redeemed_by IS NULL))
                );
                CREATE INDEX redemption_codes_by_issued_to ON entitlements.redemption_codes (app_id, issued_to);
                """
        )
    ]
}
