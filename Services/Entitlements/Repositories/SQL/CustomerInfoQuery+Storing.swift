import ShopkeeperModels

extension CustomerInfoQuery {
    /// Stores the rendered `doc` (see ``RenderAndStore``) unless its body is NULL: its version is the one the
    /// statement's snapshot saw (0 for none), and an existing row is overwritten only while it still has that version.
    /// With the body go what tells a reader whether it still counts: the app's catalog revision, the stamp of the
    /// subscriptions it shows (`subscriptionsStamp`, the expression ``subscriptionsStamp(customer:)``) and the
    /// products it read of the catalog (`catalogProducts`, an expression such as ``catalogRead``, in the statement's
    /// snapshot) with the sum of their revisions, stamped with the version and subscriptions stamp stored beside them
    /// (`entitlements.stored_customer_info_v2`, migration 0032, compares them).
    static func stored(subscriptionsStamp: String, catalogProducts: String) -> String {
        """
        , catalog_read AS MATERIALIZED (
            -- (Materialized: inlined, the expression would run once for each use of its column.)
            SELECT \(catalogProducts) AS products
        ), stored AS (
            INSERT INTO entitlements.customer_documents AS d (
                customer_id, version, body, catalog_revision, valid_until, subscriptions_stamp,
                catalog_products, catalog_stamp, catalog_stamped_version, catalog_stamped_subscriptions)
            SELECT doc.customer_id, known.version, doc.body,
                   (SELECT r.revision FROM catalog.revisions_v1 r WHERE r.app_id = $1), doc.next_change,
                   subscribed.stamp, cr.products,
                   CASE WHEN cr.products IS NOT NULL THEN (
                       SELECT coalesce(sum(r.revision), 0) FROM catalog.product_revisions_v1 r
                       WHERE r.app_id = $1 AND r.product_id = ANY (cr.products)) END,
                   known.version, subscribed.stamp
            FROM doc CROSS JOIN catalog_read cr
            -- (OFFSET 0: each read once. Pulled up into the select list, each use of its column ran the lookup
            -- again, and a plan made while the table was nearly empty scans the whole table at each.)
            CROSS JOIN LATERAL (
                SELECT coalesce((SELECT k.version FROM entitlements.customer_documents k
                                 WHERE k.customer_id = doc.customer_id), 0) AS version OFFSET 0) known
            CROSS JOIN LATERAL (SELECT \(subscriptionsStamp) AS stamp OFFSET 0) subscribed
            WHERE doc.body IS NOT NULL
            ON CONFLICT (customer_id) DO UPDATE
                SET body = excluded.body, catalog_revision = excluded.catalog_revision,
                    valid_until = excluded.valid_until, subscriptions_stamp = excluded.subscriptions_stamp,
                    catalog_products = excluded.catalog_products, catalog_stamp = excluded.catalog_stamp,
                    catalog_stamped_version = excluded.catalog_stamped_version,
                    catalog_stamped_subscriptions = excluded.catalog_stamped_subscriptions, forgotten_by = NULL
                WHERE d.version = excluded.version
        )
        """
    }

    /// An SQL expression in the scope of ``sources``: the catalog products (`catalog.products_v1` rows) the render
    /// reads, sorted, as `text[]`: those of the customer's non-consumable and non-renewing purchases, subscriptions,
    /// trial and owned products, whether the catalog has them or not (one created later moves the stamp). NULL when it
    /// reads the app's whole catalog: the customer or one merged into it has app transactions, and `owned` tries every
    /// non-consumable's rules on them. Every product id the render joins with the catalog comes from one of these, and
    /// a change of them is a write here that forgets the stored info (or a subscriptions change, which moves its stamp).
    static let catalogRead = """
        CASE WHEN EXISTS (
            SELECT 1 FROM entitlements.app_transactions t WHERE t.customer_id = ANY (ARRAY(SELECT customer_id FROM ids)))
        THEN NULL ELSE ARRAY(
            SELECT DISTINCT x.product_id FROM (
                SELECT p.product_id FROM c
                JOIN entitlements.purchases p ON p.customer_id = c.customer_id
                    AND p.product_type IN (\(ProductType.nonConsumable.sql), \(ProductType.nonRenewing.sql))
                UNION ALL
                SELECT s.product_id FROM subs s
                UNION ALL
                SELECT t.product_id FROM trial t
                UNION ALL
                SELECT o.product_id FROM owned o
            ) AS x
            WHERE x.product_id IS NOT NULL ORDER BY x.product_id)
        END
        """

    /// ``catalogRead`` of the plain render (``plainRendering``): a plain customer's info reads the catalog products of
    /// its non-consumable purchases only.
    static let plainCatalogRead = """
        ARRAY(
            SELECT DISTINCT p.product_id FROM c
            JOIN entitlements.purchases p ON p.customer_id = c.customer_id
                AND p.product_type = \(ProductType.nonConsumable.sql)
            WHERE p.product_id IS NOT NULL ORDER BY p.product_id)
        """

    /// An SQL expression: the sum of the revisions of the subscriptions a render of `customer` (an expression) reads,
    /// those of its auto-renewable purchases (a purchase the subscriptions service has not applied yet counts 0), or
    /// -1 when it has no auto-renewable purchase. The subscriptions service changes them without a write here (a
    /// renewal fact, auto-renew switched off, a grace period); every insert and every change there raises the sum, so
    /// stored info whose sum is not the one a read sees now is rendered again (``StoredCustomerInfoRead``). With -1 the
    /// read looks no further: a customer's first auto-renewable purchase is a write here, which forgets the info.
    ///
    /// `entitlements.stored_customer_info_v1` (migration 0025) and `_v2` (0032) compare with the same expression,
    /// written out: a change here needs a new migration replacing that function, or no stored info of a subscriber
    /// would count.
    static func subscriptionsStamp(customer: String) -> String {
        """
        (SELECT CASE WHEN count(*) = 0 THEN -1 ELSE coalesce(sum(s.revision), 0) END
         FROM entitlements.purchases p
         LEFT JOIN subscriptions.subscriptions_v1 s
             ON s.store = p.store AND s.original_transaction_id = p.original_transaction_id
         WHERE p.customer_id = \(customer) AND p.product_type = \(ProductType.autoRenewable.sql))
        """
    }
}
