import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// Functions that let an apply do in one round trip what took several.
    static let fewerRoundTrips: [Migration] = [
        Migration(
            "0026_lock_customers_then_find",
            sql: """
                -- Takes the locks of `p_ids` (`entitlements.lock_customers`, in the global order) and then, with a
                -- snapshot taken after they are held, reads which customer `p_app_user_id` names now (NULL: none, or no
                -- id given). The statements of a VOLATILE function each see what committed before they started, so the
                -- read sees a merge that committed while the locks were waited for, as a statement of its own would.
                CREATE FUNCTION entitlements.lock_customers_then_find(p_ids uuid[], p_app_id text, p_app_user_id text)
                RETURNS uuid
                LANGUAGE plpgsql VOLATILE AS $$
                DECLARE
                    found uuid;
                BEGIN
                    IF cardinality(p_ids) > 0 THEN
                        PERFORM entitlements.lock_customers(p_ids);
                    END IF;
                    IF p_app_user_id IS NULL THEN
                        RETURN NULL;
                    END IF;
                    SELECT customer_id INTO found FROM entitlements.aliases
                    WHERE app_id = p_app_id AND app_user_id = p_app_user_id;
                    RETURN found;
                END;
                $$;
                """
        )
    ]
}
