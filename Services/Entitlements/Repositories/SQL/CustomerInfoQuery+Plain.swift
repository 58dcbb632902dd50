import ShopkeeperDatabase
import ShopkeeperModels

extension CustomerInfoQuery {
    /// ``TouchRenderAndStore`` for a *plain* customer, with a shorter plan: most of a render's cost is PostgreSQL
    /// setting up every section (subscriptions, stacks, trial, owned products, promotional grants) for every
    /// customer, though most customers of a shop have none of them.
    ///
    /// A customer is plain when it has no auto-renewable or non-renewing purchase, no trial, no product claim, no app
    /// transaction, no promotional grant and no customer merged into it: then its info is its aliases, its purchases'
    /// entitlements, its purchases and its balances, and the rest is empty, as the full render would write it
    /// (``Sections`` holds what both write). Whether it is plain is decided by the same statement, in the same
    /// snapshot as the info it renders, never from what was read before. For a customer that is not plain, the
    /// statement answers its row with a NULL body, stores and touches nothing, and the caller runs the full render
    /// (``renderDocument(appID:appUserID:storing:touching:plainFirst:on:logger:)``).
    enum PlainTouchRenderAndStore: PreparedSQL {
        static let sql = plainRendering
    }

    static let plainRendering = """
        WITH c AS (
            SELECT cu.customer_id, cu.first_seen, now() AS last_seen, cu.refund_count,
                   NOT EXISTS (SELECT 1 FROM entitlements.customers m WHERE m.merged_into = cu.customer_id)
                   AND NOT EXISTS (
                       SELECT 1 FROM entitlements.purchases p
                       WHERE p.customer_id = cu.customer_id AND p.product_type IN (\(ProductType.autoRenewable.sql), \(ProductType.nonRenewing.sql)))
                   AND NOT EXISTS (
                       SELECT 1 FROM subscriptions.trials_v1 t WHERE t.app_id = $1 AND t.customer_id = cu.customer_id)
                   AND NOT EXISTS (
                       SELECT 1 FROM entitlements.content_claims k
                       WHERE k.app_id = $1 AND k.customer_id = cu.customer_id AND k.revoked_at IS NULL)
                   AND NOT EXISTS (SELECT 1 FROM entitlements.app_transactions t WHERE t.customer_id = cu.customer_id)
                   AND NOT EXISTS (
                       SELECT 1 FROM entitlements.promotional_grants g WHERE g.customer_id = cu.customer_id) AS plain
            FROM entitlements.aliases a JOIN entitlements.customers cu ON cu.customer_id = a.customer_id
            WHERE a.app_id = $1 AND a.app_user_id = $2
        ), touched AS (
            UPDATE entitlements.customers SET last_seen = now()
            WHERE customer_id = (SELECT customer_id FROM c WHERE c.plain)
        ), grants AS (
        \(Sections.purchaseGrants)
        ), \(Sections.best), doc AS (
            SELECT c.customer_id, c.last_seen, CASE WHEN c.plain THEN jsonb_build_object(
                \(Sections.customerFields),
                'subscriptions', '[]'::jsonb,
                'trial', jsonb_build_object('state', 'none'),
                \(Sections.purchaseFields),
                'product_grants', '[]'::jsonb
            )::text END AS body,
            CASE WHEN c.plain THEN (SELECT min(t) FROM (\(Sections.purchaseEnds)) AS changes(t)) END AS next_change
            FROM c
        )\(stored(
            subscriptionsStamp: "-1 /* no auto-renewable purchase: plain */", catalogProducts: plainCatalogRead))
        SELECT doc.body, doc.last_seen, doc.customer_id, doc.next_change
        FROM doc
        """
}
