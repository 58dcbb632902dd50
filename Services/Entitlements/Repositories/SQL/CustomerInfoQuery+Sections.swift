import ShopkeeperModels

extension CustomerInfoQuery {
    /// The parts of customer info that the full render (``rendering(storing:touching:)``) and the plain one
    /// (``plainRendering``) write alike, so that the two cannot disagree where both apply. Each reads the customer as
    /// `c` (`customer_id`, `first_seen`, `refund_count`).
    enum Sections {
        /// The entitlements non-consumable purchases grant, one row per entitlement of each (the first part of
        /// `grants`, with the `reference` and `state` that explain it).
        static let purchaseGrants = """
            SELECT e.entitlement_id,
                   p.revoked_at IS NULL AND (p.expires_date IS NULL OR p.expires_date > now()) AS active,
                   coalesce(p.revoked_at, p.expires_date) AS expires_at,
                   p.product_id, p.purchase_date, p.store, p.environment, 'purchase' AS source,
                   p.original_transaction_id AS reference,
                   CASE WHEN p.revoked_at IS NOT NULL THEN 'revoked'
                        WHEN p.expires_date IS NOT NULL AND p.expires_date <= now() THEN 'expired'
                        ELSE 'owned' END AS state
            FROM c
            JOIN entitlements.purchases p ON p.customer_id = c.customer_id AND p.product_type = \(ProductType.nonConsumable.sql)
            JOIN catalog.products_v1 pr ON pr.app_id = p.app_id AND pr.product_id = p.product_id
            CROSS JOIN LATERAL jsonb_array_elements_text(coalesce(pr.entitlements, '[]'::jsonb))
                AS e(entitlement_id)
            """

        /// `best`: the one source per entitlement that customer info shows, from `grants`.
        static let best = """
            best AS (
                SELECT DISTINCT ON (entitlement_id) * FROM grants
                ORDER BY entitlement_id, \(precedence)
            )
            """

        /// The customer's own fields of the info and its `entitlements` (from `best`), as `jsonb_build_object`
        /// arguments.
        static let customerFields = """
            'aliases', coalesce((
                SELECT jsonb_agg(a.app_user_id ORDER BY a.created_at, a.app_user_id)
                FROM entitlements.aliases a WHERE a.customer_id = c.customer_id), '[]'::jsonb),
            'first_seen', entitlements.iso(c.first_seen),
            'refund_count', c.refund_count,
            'entitlements', coalesce((
                SELECT jsonb_object_agg(b.entitlement_id, jsonb_build_object(
                    'active', b.active, 'expires_at', entitlements.iso(b.expires_at), 'product_id', b.product_id,
                    'purchase_date', entitlements.iso(b.purchase_date), 'store', b.store,
                    'environment', b.environment, 'source', b.source))
                FROM best b), '{}'::jsonb)
            """

        /// `non_subscription_purchases` and `consumable_balances`, as `jsonb_build_object` arguments.
        static let purchaseFields = """
            'non_subscription_purchases', coalesce((
                SELECT jsonb_agg(jsonb_build_object(
                    'product_id', p.product_id, 'store_product_id', p.store_product_id, 'type', p.product_type,
                    'store', p.store, 'environment', p.environment, 'transaction_id', p.latest_transaction_id,
                    'original_transaction_id', p.original_transaction_id,
                    'purchase_date', entitlements.iso(p.purchase_date), 'quantity', p.quantity,
                    'revoked_at', entitlements.iso(p.revoked_at), 'revocation_reason', p.revocation_reason)
                    ORDER BY p.purchase_date, p.original_transaction_id)
                FROM entitlements.purchases p
                WHERE p.customer_id = c.customer_id AND p.product_type <> \(ProductType.autoRenewable.sql)), '[]'::jsonb),
            'consumable_balances', coalesce((
                SELECT jsonb_object_agg(bal.product_id, bal.balance)
                FROM entitlements.balances bal WHERE bal.customer_id = c.customer_id), '{}'::jsonb)
            """

        /// The ends ahead of the customer's purchases (one column): part of the info's next change by itself.
        static let purchaseEnds = """
            SELECT p.expires_date FROM entitlements.purchases p
            WHERE p.customer_id = c.customer_id AND p.expires_date > now()
            """
    }
}
