import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// The sales summary reads the synced price history (`catalog.store_price_history_v1`) through one function that,
    /// like `entitlements.stamp_event_experiments`, finds nothing while the catalog has not migrated yet: each service
    /// migrates its own schema when it starts, so during a rolling deploy the entitlements service can run before the
    /// view exists, and a report must not fail for the catalog's sake (its Play sales stay unpriced, `null`, as they
    /// do when no sync has seen a price).
    static let playPriceGuard: [Migration] = [
        Migration(
            "0042_play_price_guard",
            sql: """
                -- The price in force for a Play sale of `store_product_id` in `territory` (Play's region code) bought
                -- at `purchased_at` (to the second) and applied at `applied_at`: the latest the catalog's syncs saw
                -- by then, or no row (also when catalog.store_price_history_v1 does not exist yet).
                -- PL/pgSQL plans the query only when it runs it, so a missing view fails nothing.
                CREATE FUNCTION entitlements.play_price_in_force(
                    p_app_id text, p_store_product_id text, p_territory text, p_purchased_at timestamptz,
                    p_applied_at timestamptz
                ) RETURNS TABLE (currency text, unit_milliunits bigint)
                LANGUAGE plpgsql STABLE AS $$
                BEGIN
                    IF to_regclass('catalog.store_price_history_v1') IS NULL THEN
                        RETURN;
                    END IF;
                    RETURN QUERY
                        SELECT h.currency::text, round(h.price * 1000)::bigint
                        FROM catalog.store_price_history_v1 h
                        WHERE h.app_id = p_app_id AND h.platform = 'play_store'
                          AND h.store_product_id = p_store_product_id AND h.territory = p_territory
                          AND h.effective_at < date_trunc('second', p_purchased_at) + interval '1 second'
                          AND h.effective_at <= p_applied_at
                        ORDER BY h.effective_at DESC
                        LIMIT 1;
                END;
                $$;
                """
        )
    ]
}
