import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// Functions that let an apply do in one round trip what took several, and cost less in every statement.
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
        ),
        Migration(
            "0027_iso_inlined",
            sql: """
                -- `entitlements.iso` was declared IMMUTABLE around `to_char`, which is STABLE: PostgreSQL does not
                -- inline a function whose body is more volatile than declared, so every call ran the SQL function
                -- executor, and parsed its body again in every statement that used it (an eighth of a customer info
                -- render's time). Declared STABLE, like its body, it is inlined into the calling statement. No index
                -- or generated column uses it (those would need IMMUTABLE).
                CREATE OR REPLACE FUNCTION entitlements.iso(t timestamptz) RETURNS text
                LANGUAGE sql STABLE AS $$
                    SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                $$;
                """
        ),
    ]
}
