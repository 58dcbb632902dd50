import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// The apply of a purchase seen for the first time, as reviewed SQL: the functions both ways of applying call
    /// (the one round trip, ``NewPurchaseApply``, and the full apply, ``PurchasePostgresRepository``), so each
    /// statement's text exists once, here.
    ///
    /// Versioned like every published function: a function is never replaced in place. A change is a new `_v2` in a
    /// new migration, beside the `_v1`; during a rolling deploy the replicas of each release call their own, and a
    /// later migration drops the `_v1` once no release running calls it. The hash-named routines that releases before
    /// this one installed at start (`entitlements.apply_new_purchase_<hash>`, `insert_purchase_<hash>`) stay for
    /// their replicas during the deploy in the same way.
    ///
    /// Product types and event names are literals here (the Swift enums `ProductType` and `EventType` spell the same
    /// words; `NewPurchaseApplyMigrationTests` holds them to it).
    static let newPurchaseApply: [Migration] = [
        Migration(
            "0030_purchase_decisions_v1",
            sql: """
                -- The type a new purchase is recorded with: the catalog's when it knows the store product
                -- (`p_product_id` not NULL), else the store's own type of the transaction, else `unknown`. One SELECT
                -- of an IMMUTABLE, non-strict SQL function: inlined into the statements that call it.
                CREATE FUNCTION entitlements.purchase_type_v1(p_product_id text, p_catalog_type text, p_store_type text)
                RETURNS text
                LANGUAGE sql IMMUTABLE AS $$
                    SELECT CASE WHEN p_product_id IS NULL THEN coalesce(p_store_type, 'unknown')
                                ELSE coalesce(p_catalog_type, '') END
                $$;

                -- The units a consumable purchase credits: the catalog's consumable quantity (NULL: 1) for each one
                -- bought. Inlined likewise (the first credit of a new purchase and a later credit both call it).
                CREATE FUNCTION entitlements.consumable_units_v1(p_consumable_quantity bigint, p_quantity bigint)
                RETURNS bigint
                LANGUAGE sql IMMUTABLE AS $$
                    SELECT coalesce(p_consumable_quantity, 1) * greatest(1, p_quantity)
                $$;

                -- A new purchase recorded whole, in one statement: the purchase (unless it exists: then nothing is
                -- written and no row answered), its first store transaction, the device it was first presented from,
                -- a consumable's units credited (the ledger line and the balance) when `p_credits` (the store reports
                -- it neither revoked nor reinstated: those are the apply's own steps), and its event: a credit's
                -- `consumable_purchase` (with the units and the balance), a non-renewing purchase's
                -- `non_renewing_purchase`, none for an auto-renewable one (the subscriptions service announces it) or
                -- an uncredited consumable, `initial_purchase` for anything else. `p_product_id`, `p_catalog_type`,
                -- `p_consumable_quantity` are the catalog's (NULL: it does not know the store product), `p_store_type`
                -- the store's type of the transaction, `p_payload` the event's payload without the product, units
                -- and balance. Answers the new row's customer, type and credited units.
                --
                -- PL/pgSQL rather than SQL: PL/pgSQL keeps its statement's plan for the session, as a prepared
                -- statement does, while PostgreSQL 15 plans the body of a SQL function that cannot be inlined (this
                -- one writes) at every call: measured, 1.4-1.6 ms of server CPU a call against 0.3-0.8 ms.
                CREATE FUNCTION entitlements.insert_purchase_v1(
                    p_store text, p_original_transaction_id text, p_app_id text, p_customer_id uuid,
                    p_store_product_id text, p_product_id text, p_catalog_type text, p_environment text,
                    p_ownership_type text, p_original_purchase_date timestamptz, p_transaction_id text,
                    p_quantity bigint, p_expires_date timestamptz, p_revoked_at timestamptz,
                    p_revocation_reason text, p_app_version text, p_purchase_date timestamptz,
                    p_price_milliunits bigint, p_currency text, p_storefront text, p_device_id text,
                    p_consumable_quantity bigint, p_app_user_id text, p_payload text, p_store_type text,
                    p_credits boolean)
                RETURNS TABLE (inserted_customer uuid, inserted_type text, inserted_credited bigint)
                LANGUAGE plpgsql VOLATILE AS $$
                BEGIN
                    RETURN QUERY
                    WITH decided AS (
                        SELECT kind.type, units.credit,
                               CASE WHEN units.credit IS NOT NULL THEN 'consumable_purchase'
                                    WHEN p_product_id IS NULL THEN 'initial_purchase'
                                    WHEN kind.type IN ('consumable', 'auto_renewable') THEN NULL
                                    WHEN kind.type = 'non_renewing' THEN 'non_renewing_purchase'
                                    ELSE 'initial_purchase' END AS event
                        FROM (SELECT entitlements.purchase_type_v1(p_product_id, p_catalog_type, p_store_type))
                            AS kind (type)
                        CROSS JOIN LATERAL (
                            SELECT CASE WHEN p_product_id IS NOT NULL AND kind.type = 'consumable' AND p_credits
                                        THEN entitlements.consumable_units_v1(p_consumable_quantity, p_quantity) END)
                            AS units (credit)
                    ), purchase AS (
                        INSERT INTO entitlements.purchases (
                            store, original_transaction_id, app_id, customer_id, store_product_id, product_id,
                            product_type, environment, ownership_type, purchase_date, latest_transaction_id, quantity,
                            expires_date, revoked_at, revocation_reason, app_version, credited)
                        SELECT p_store, p_original_transaction_id, p_app_id, p_customer_id, p_store_product_id,
                               p_product_id, decided.type, p_environment, p_ownership_type, p_original_purchase_date,
                               p_transaction_id, p_quantity, p_expires_date, p_revoked_at, p_revocation_reason,
                               p_app_version, decided.credit
                        FROM decided
                        ON CONFLICT (store, original_transaction_id) DO NOTHING
                        RETURNING customer_id, product_type, credited
                    ), recorded AS (
                        INSERT INTO entitlements.transactions (
                            store, transaction_id, original_transaction_id, app_id, customer_id, environment,
                            store_product_id, quantity, purchase_date, expires_date, price_milliunits, currency,
                            storefront, ownership_type)
                        SELECT p_store, p_transaction_id, p_original_transaction_id, p_app_id, purchase.customer_id,
                               p_environment, p_store_product_id, p_quantity, p_purchase_date, p_expires_date,
                               p_price_milliunits, p_currency, p_storefront, p_ownership_type
                        FROM purchase
                        ON CONFLICT (store, transaction_id) DO NOTHING
                    ), device AS (
                        INSERT INTO entitlements.purchase_devices AS d (
                            store, original_transaction_id, device_id, customer_id)
                        SELECT p_store, p_original_transaction_id, p_device_id, purchase.customer_id
                        FROM purchase WHERE p_device_id IS NOT NULL
                        ON CONFLICT (store, original_transaction_id, device_id)
                        DO UPDATE SET last_seen = now(), customer_id = excluded.customer_id
                    ), line AS (
                        INSERT INTO entitlements.ledger (
                            app_id, customer_id, product_id, delta, reason, store, transaction_id, idempotency_key)
                        SELECT p_app_id, p_customer_id, p_product_id, purchase.credited, 'purchase', p_store,
                               p_transaction_id, NULL
                        FROM purchase WHERE purchase.credited IS NOT NULL
                        RETURNING customer_id, product_id, app_id, delta
                    ), balance AS (
                        INSERT INTO entitlements.balances AS b (customer_id, product_id, app_id, balance)
                        SELECT line.customer_id, line.product_id, line.app_id, line.delta FROM line
                        ON CONFLICT (customer_id, product_id)
                        DO UPDATE SET balance = b.balance + excluded.balance, updated_at = now()
                        RETURNING balance
                    ), event AS (
                        -- Named by the presenter's id, or else the customer's first id (its oldest alias).
                        INSERT INTO entitlements.events (app_id, customer_id, app_user_id, type, environment, payload)
                        SELECT p_app_id, p_customer_id,
                               coalesce(p_app_user_id, (
                                   SELECT a.app_user_id FROM entitlements.aliases a WHERE a.customer_id = p_customer_id
                                   ORDER BY a.created_at, a.app_user_id LIMIT 1)),
                               decided.event, p_environment,
                               p_payload::jsonb
                               || jsonb_strip_nulls(
                                   jsonb_build_object('product_id', p_product_id, 'quantity', purchase.credited))
                               || coalesce(
                                   (SELECT jsonb_build_object('balance', x.balance) FROM balance x), '{}'::jsonb)
                        FROM purchase CROSS JOIN decided WHERE decided.event IS NOT NULL
                        RETURNING event_id, app_id
                    ), delivery AS (
                        INSERT INTO entitlements.webhook_deliveries (event_id, app_id)
                        SELECT event.event_id, event.app_id FROM event
                        JOIN entitlements.app_settings s ON s.app_id = event.app_id
                        WHERE s.webhook_url IS NOT NULL
                    )
                    SELECT purchase.customer_id, purchase.product_type, purchase.credited FROM purchase;
                END
                $$;
                """
        ),
        Migration(
            "0031_apply_new_purchase_v1",
            sql: """
                -- `apply_lookup_v1` names the catalog's published views, which may not exist yet when this service
                -- migrates first: its body is checked when called, not now.
                SET LOCAL check_function_bodies = off;

                -- What an apply reads before it takes any lock, by scalar keys (each through its key's index: with
                -- arrays of keys a generic plan counted 100 rows for them and PostgreSQL planned afresh at every call):
                -- the app's settings, the current owner of the purchase (`p_store`, `p_original_transaction_id`; read
                -- without a lock: the apply takes its customer's lock, then locks the purchase and checks the owner
                -- again) and the catalog product the store product is sold as. Always one row (NULLs for what is not
                -- there). One SELECT of a STABLE, non-strict SQL function: inlined into its caller's statement.
                CREATE FUNCTION entitlements.apply_lookup_v1(
                    p_app_id text, p_store text, p_original_transaction_id text, p_store_product_id text)
                RETURNS TABLE (
                    transfer_policy text, device_limit integer, accept_sandbox boolean, webhook_url text, owner_id uuid,
                    product_id text, product_type text, consumable_quantity integer)
                LANGUAGE sql STABLE AS $$
                    SELECT s.transfer_policy, s.device_limit, s.accept_sandbox, s.webhook_url,
                           (SELECT o.customer_id FROM entitlements.purchases o
                            WHERE o.store = p_store AND o.original_transaction_id = p_original_transaction_id
                              AND o.app_id = p_app_id),
                           p.product_id, p.type, p.consumable_quantity
                    FROM (VALUES (1)) AS one (n)
                    LEFT JOIN entitlements.app_settings s ON s.app_id = p_app_id
                    LEFT JOIN catalog.store_products_v1 sp
                        ON sp.app_id = p_app_id AND sp.platform = p_store AND sp.store_product_id = p_store_product_id
                    LEFT JOIN catalog.products_v1 p ON p.app_id = sp.app_id AND p.product_id = sp.product_id
                $$;
                -- The PL/pgSQL bodies below are checked (their syntax: PL/pgSQL looks up tables when called).
                SET LOCAL check_function_bodies = on;

                -- The start of an apply: the presenter's customer (`p_app_user_id`, created on first sight by
                -- `entitlements.customer_for`; NULL without a presenter) and `entitlements.apply_lookup_v1`; with
                -- `p_lock` (an apply of one transaction) also the locks of the presenter's customer and the purchase's
                -- owner, and the customer `p_app_user_id` names once they are held (`customer_now`, read by
                -- `entitlements.lock_customers_then_find` with a snapshot of its own: a merge committed while the
                -- locks were waited for shows). Without `p_lock`, no lock is taken and `customer_now` is NULL.
                CREATE FUNCTION entitlements.apply_start_v1(
                    p_app_id text, p_app_user_id text, p_store text, p_original_transaction_id text,
                    p_store_product_id text, p_lock boolean,
                    OUT transfer_policy text, OUT device_limit integer, OUT accept_sandbox boolean,
                    OUT webhook_url text, OUT customer_id uuid, OUT owner_id uuid, OUT product_id text,
                    OUT product_type text, OUT consumable_quantity integer, OUT customer_now uuid)
                LANGUAGE plpgsql VOLATILE AS $$
                BEGIN
                    IF p_app_user_id IS NOT NULL THEN
                        customer_id := entitlements.customer_for(p_app_id, p_app_user_id);
                    END IF;
                    SELECT l.transfer_policy, l.device_limit, l.accept_sandbox, l.webhook_url, l.owner_id, l.product_id,
                           l.product_type, l.consumable_quantity
                    INTO transfer_policy, device_limit, accept_sandbox, webhook_url, owner_id, product_id,
                         product_type, consumable_quantity
                    FROM entitlements.apply_lookup_v1(p_app_id, p_store, p_original_transaction_id, p_store_product_id)
                        AS l;
                    IF p_lock THEN
                        customer_now := entitlements.lock_customers_then_find(
                            array_remove(ARRAY[owner_id, customer_id], NULL), p_app_id, p_app_user_id);
                    END IF;
                END
                $$;

                -- A purchase seen for the first time, applied in one call (one round trip, its own transaction): the
                -- start with the locks (`entitlements.apply_start_v1`), then the purchase recorded whole
                -- (`entitlements.insert_purchase_v1`). It declines before writing anything of the purchase, answering
                -- no row, what the full apply must decide: no presenter's customer, a purchase that exists (or that
                -- someone else inserted meanwhile), a customer merged while the locks were waited for, a test purchase
                -- the app does not accept, a subscription (auto-renewable or non-renewing: its trial's conversion is
                -- the full apply's). Declining may leave the presenter's customer created, as the full apply would.
                -- Answers the type recorded, the units credited, the catalog product and the presenter's customer.
                -- It does not render the customer's info: the caller renders and stores it next (a cache of what
                -- committed here).
                CREATE FUNCTION entitlements.apply_new_purchase_v1(
                    p_app_id text, p_app_user_id text, p_store text, p_original_transaction_id text,
                    p_store_product_id text, p_environment text, p_ownership_type text,
                    p_original_purchase_date timestamptz, p_transaction_id text, p_quantity bigint,
                    p_expires_date timestamptz, p_app_version text, p_purchase_date timestamptz,
                    p_price_milliunits bigint, p_currency text, p_storefront text, p_device_id text, p_payload text,
                    p_store_type text)
                RETURNS TABLE (
                    applied_type text, applied_credited bigint, applied_product_id text, applied_customer uuid)
                LANGUAGE plpgsql VOLATILE AS $$
                DECLARE
                    v_start record;
                    v_new record;
                BEGIN
                    v_start := entitlements.apply_start_v1(
                        p_app_id, p_app_user_id, p_store, p_original_transaction_id, p_store_product_id, true);
                    IF v_start.customer_id IS NULL OR v_start.owner_id IS NOT NULL
                        OR v_start.customer_now IS DISTINCT FROM v_start.customer_id
                        OR (p_environment <> 'production' AND NOT coalesce(v_start.accept_sandbox, true))
                        OR entitlements.purchase_type_v1(v_start.product_id, v_start.product_type, p_store_type)
                            IN ('auto_renewable', 'non_renewing')
                    THEN
                        RETURN;
                    END IF;
                    SELECT i.inserted_type, i.inserted_credited INTO v_new
                    FROM entitlements.insert_purchase_v1(
                        p_store, p_original_transaction_id, p_app_id, v_start.customer_id, p_store_product_id,
                        v_start.product_id, v_start.product_type, p_environment, p_ownership_type,
                        p_original_purchase_date, p_transaction_id, p_quantity, p_expires_date, NULL, NULL,
                        p_app_version, p_purchase_date, p_price_milliunits, p_currency, p_storefront, p_device_id,
                        v_start.consumable_quantity::bigint, p_app_user_id, p_payload, p_store_type, true) AS i;
                    IF NOT FOUND THEN
                        RETURN;
                    END IF;
                    applied_type := v_new.inserted_type;
                    applied_credited := v_new.inserted_credited;
                    applied_product_id := v_start.product_id;
                    applied_customer := v_start.customer_id;
                    RETURN NEXT;
                END
                $$;
                """
        ),
    ]
}
