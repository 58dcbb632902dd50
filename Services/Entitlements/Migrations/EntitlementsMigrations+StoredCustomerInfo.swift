import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// What other processes may read and write of a customer's stored info: the gateway answers an app launch from
    /// it without calling this service (`StoredCustomerInfoRead` in ShopkeeperStoredCustomerInfo).
    static let storedCustomerInfoForReaders: [Migration] = [
        Migration(
            "0025_stored_customer_info_v1",
            sql: """
                -- The function bodies name other services' published views (`catalog.revisions_v1`,
                -- `subscriptions.subscriptions_v1`), which may not exist yet when this service migrates first: they
                -- are checked when called, not now.
                SET LOCAL check_function_bodies = off;

                -- The customer an app user id names, with its stored info while it still counts: `body` (the document
                -- without `app_user_id` and `last_seen`) is NULL when something it shows changed since it was
                -- rendered (a change forgot it), the app's catalog revision moved, the sum of the revisions of the
                -- customer's subscriptions is not the one it was rendered with (-1: no auto-renewable purchase, then
                -- nothing to compare), or `valid_until` passed. No row: no customer has that id. A reader that finds
                -- no body asks this service, which renders and stores it.
                --
                -- One SELECT in a STABLE, non-strict SQL function: PostgreSQL inlines it into the calling statement,
                -- so a prepared `SELECT ... FROM entitlements.stored_customer_info_v1($1, $2)` is planned once.
                CREATE FUNCTION entitlements.stored_customer_info_v1(p_app_id text, p_app_user_id text)
                RETURNS TABLE (customer_id uuid, last_seen timestamptz, body text, valid_until timestamptz)
                LANGUAGE sql STABLE AS $$
                    SELECT a.customer_id, cu.last_seen, d.body, d.valid_until
                    FROM entitlements.aliases a
                    JOIN entitlements.customers cu ON cu.customer_id = a.customer_id
                    LEFT JOIN entitlements.customer_documents d ON d.customer_id = a.customer_id
                        AND d.body IS NOT NULL
                        AND (d.valid_until IS NULL OR d.valid_until > now())
                        AND d.catalog_revision IS NOT DISTINCT FROM (
                            SELECT r.revision FROM catalog.revisions_v1 r WHERE r.app_id = a.app_id)
                        AND CASE WHEN d.subscriptions_stamp = -1 THEN true
                                 ELSE d.subscriptions_stamp = (
                                     SELECT CASE WHEN count(*) = 0 THEN -1 ELSE coalesce(sum(s.revision), 0) END
                                     FROM entitlements.purchases p
                                     LEFT JOIN subscriptions.subscriptions_v1 s
                                         ON s.store = p.store AND s.original_transaction_id = p.original_transaction_id
                                     WHERE p.customer_id = a.customer_id AND p.product_type = 'auto_renewable')
                            END
                    WHERE a.app_id = p_app_id AND a.app_user_id = p_app_user_id
                $$;

                -- Records that these customers were seen now (an app launch read from stored info), for those whose
                -- `last_seen` is older than the resolution. Rows a change holds are skipped: that change writes
                -- `last_seen` itself (every write does), and skipping takes row locks without waiting, so a batch is
                -- never part of a deadlock.
                CREATE FUNCTION entitlements.customers_seen_v1(p_customers uuid[], p_resolution_seconds float8)
                RETURNS void LANGUAGE sql AS $$
                    UPDATE entitlements.customers cu SET last_seen = now()
                    FROM (
                        SELECT customer_id FROM entitlements.customers
                        WHERE customer_id = ANY(p_customers)
                            AND last_seen < now() - make_interval(secs => p_resolution_seconds)
                        ORDER BY customer_id
                        FOR UPDATE SKIP LOCKED
                    ) AS seen
                    WHERE cu.customer_id = seen.customer_id
                $$;
                """
        )
    ]
}

extension EntitlementsMigrations {
    /// Stored info that outlives catalog edits of products it does not show (`stored_customer_info_v2`), and the
    /// stored read's arithmetic of `last_seen` in the function that readers call.
    static let storedCustomerInfoByProduct: [Migration] = [
        Migration(
            "0032_stored_customer_info_v2",
            sql: """
                -- The function body names other services' published views: checked when called (see 0025).
                SET LOCAL check_function_bodies = off;

                -- What a stored body read of the catalog (`CustomerInfoQuery.catalogRead`): the products whose rows
                -- the render read (`catalog_products`, sorted, NULL when it read the app's whole catalog: a customer
                -- with app transactions, whose owned products are every non-consumable's rules) and the sum of their
                -- revisions (`catalog.product_revisions_v1`) in the render's snapshot (`catalog_stamp`). A product's
                -- revision only grows, also when the product is deleted, so any change of one of them moves the sum.
                -- The stamp holds only for the body stored with it: with the `version` and `subscriptions_stamp` it
                -- was stored with. A writer that does not know these columns (a replica of the previous release) stores
                -- a body and leaves them as they were; the body it stores after a change has a new `version` (a
                -- change forgets the row) or a new `subscriptions_stamp`, so its stamp no longer holds and the app's
                -- whole catalog revision (`catalog_revision`, which every writer stores) decides, as before.
                ALTER TABLE entitlements.customer_documents
                    ADD COLUMN catalog_products text[],
                    ADD COLUMN catalog_stamp numeric,
                    ADD COLUMN catalog_stamped_version bigint,
                    ADD COLUMN catalog_stamped_subscriptions numeric;

                -- `stored_customer_info_v1`, except that a catalog edit forgets only the bodies that read the products
                -- it changed, with the stored read's `last_seen`: the one the info shows (the time of the read when
                -- the stored one is older than `p_resolution_seconds`) and whether it was older (then the reader
                -- records that the customer was seen: `customers_seen_v1`). A STABLE SQL function of one SELECT,
                -- inlined into the reader's statement.
                CREATE FUNCTION entitlements.stored_customer_info_v2(
                    p_app_id text, p_app_user_id text, p_resolution_seconds float8)
                RETURNS TABLE (
                    customer_id uuid, body text, last_seen timestamptz, last_seen_stale boolean,
                    valid_until timestamptz)
                LANGUAGE sql STABLE AS $$
                    SELECT a.customer_id, d.body,
                           CASE WHEN cu.last_seen < now() - make_interval(secs => p_resolution_seconds) THEN now()
                                ELSE cu.last_seen END,
                           cu.last_seen < now() - make_interval(secs => p_resolution_seconds),
                           d.valid_until
                    FROM entitlements.aliases a
                    JOIN entitlements.customers cu ON cu.customer_id = a.customer_id
                    LEFT JOIN entitlements.customer_documents d ON d.customer_id = a.customer_id
                        AND d.body IS NOT NULL
                        AND (d.valid_until IS NULL OR d.valid_until > now())
                        AND CASE WHEN d.catalog_products IS NOT NULL AND d.catalog_stamped_version = d.version
                                      AND d.catalog_stamped_subscriptions IS NOT DISTINCT FROM d.subscriptions_stamp
                                 THEN d.catalog_stamp = (
                                     SELECT coalesce(sum(r.revision), 0) FROM catalog.product_revisions_v1 r
                                     WHERE r.app_id = a.app_id AND r.product_id = ANY (d.catalog_products))
                                 ELSE d.catalog_revision IS NOT DISTINCT FROM (
                                     SELECT r.revision FROM catalog.revisions_v1 r WHERE r.app_id = a.app_id)
                            END
                        AND CASE WHEN d.subscriptions_stamp = -1 THEN true
                                 ELSE d.subscriptions_stamp = (
                                     SELECT CASE WHEN count(*) = 0 THEN -1 ELSE coalesce(sum(s.revision), 0) END
                                     FROM entitlements.purchases p
                                     LEFT JOIN subscriptions.subscriptions_v1 s
                                         ON s.store = p.store AND s.original_transaction_id = p.original_transaction_id
                                     WHERE p.customer_id = a.customer_id AND p.product_type = 'auto_renewable')
                            END
                    WHERE a.app_id = p_app_id AND a.app_user_id = p_app_user_id
                $$;
                """
        )
    ]
}
