import ShopkeeperDatabase

/// The entitlements service's schema changes, oldest first. Forward only: never edit a released one, add a new one.
enum EntitlementsMigrations {
    static let runner = MigrationRunner(schema: "entitlements", migrations: all)

    static let all: [Migration] =
        [
            Migration(
                "0001_customers_purchases_ledger_events",
                sql: """
                    -- Per-app rules; an app without a row gets the defaults.
                    CREATE TABLE entitlements.app_settings (
                        app_id text PRIMARY KEY,
                        transfer_policy text NOT NULL DEFAULT 'transfer'
                            CHECK (transfer_policy IN ('transfer', 'keep_with_original', 'transfer_if_no_active')),
                        device_limit integer NOT NULL DEFAULT 25 CHECK (device_limit BETWEEN 1 AND 10000),
                        accept_sandbox boolean NOT NULL DEFAULT true,
                        webhook_url text,
                        webhook_secret text,
                        updated_at timestamptz NOT NULL DEFAULT now()
                    );

                    -- A customer of one app. `merged_into` is set when an alias folded it into another customer.
                    CREATE TABLE entitlements.customers (
                        customer_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                        app_id text NOT NULL,
                        first_seen timestamptz NOT NULL DEFAULT now(),
                        last_seen timestamptz NOT NULL DEFAULT now(),
                        refund_count integer NOT NULL DEFAULT 0,
                        merged_into uuid REFERENCES entitlements.customers (customer_id)
                    );

                    -- Every id an app addresses a customer by; the primary key makes an id name one customer only.
                    CREATE TABLE entitlements.aliases (
                        app_id text NOT NULL,
                        app_user_id text NOT NULL,
                        customer_id uuid NOT NULL REFERENCES entitlements.customers (customer_id),
                        created_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (app_id, app_user_id)
                    );
                    CREATE INDEX aliases_by_customer ON entitlements.aliases (customer_id);

                    -- The customer an id names, created on first sight. Two callers creating the same id at once both get
                    -- the one the primary key let in; the loser's empty customer is removed in its own transaction.
                    CREATE FUNCTION entitlements.customer_for(p_app_id text, p_app_user_id text) RETURNS uuid
                    LANGUAGE plpgsql AS $$
                    DECLARE
                        existing uuid;
                        created uuid;
                    BEGIN
                        LOOP
                            SELECT customer_id INTO existing FROM entitlements.aliases
                            WHERE app_id = p_app_id AND app_user_id = p_app_user_id;
                            IF existing IS NOT NULL THEN
                                RETURN existing;
                            END IF;
                            INSERT INTO entitlements.customers (app_id) VALUES (p_app_id) RETURNING customer_id INTO created;
                            INSERT INTO entitlements.aliases (app_id, app_user_id, customer_id)
                            VALUES (p_app_id, p_app_user_id, created)
                            ON CONFLICT DO NOTHING;
                            IF FOUND THEN
                                RETURN created;
                            END IF;
                            DELETE FROM entitlements.customers WHERE customer_id = created;
                        END LOOP;
                    END;
                    $$;

                    -- One row per store purchase (its original transaction): the unit that is owned, transferred,
                    -- revoked and bound to devices. The primary key, not a check, makes a purchase have one owner.
                    CREATE TABLE entitlements.purchases (
                        store text NOT NULL,
                        original_transaction_id text NOT NULL,
                        app_id text NOT NULL,
                        customer_id uuid NOT NULL REFERENCES entitlements.customers (customer_id),
                        store_product_id text NOT NULL,
                        product_id text,
                        product_type text NOT NULL,
                        environment text NOT NULL CHECK (environment IN ('production', 'sandbox')),
                        ownership_type text NOT NULL,
                        purchase_date timestamptz NOT NULL,
                        latest_transaction_id text NOT NULL,
                        quantity integer NOT NULL,
                        expires_date timestamptz,
                        credited bigint,
                        revoked_at timestamptz,
                        revocation_reason text,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        updated_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (store, original_transaction_id)
                    );
                    CREATE INDEX purchases_by_customer ON entitlements.purchases (customer_id);

                    -- Every store transaction applied, once per (store, transaction id).
                    CREATE TABLE entitlements.transactions (
                        store text NOT NULL,
                        transaction_id text NOT NULL,
                        original_transaction_id text NOT NULL,
                        app_id text NOT NULL,
                        customer_id uuid NOT NULL,
                        environment text NOT NULL,
                        store_product_id text NOT NULL,
                        quantity integer NOT NULL,
                        purchase_date timestamptz NOT NULL,
                        expires_date timestamptz,
                        price_milliunits bigint,
                        currency text,
                        applied_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (store, transaction_id),
                        FOREIGN KEY (store, original_transaction_id)
                            REFERENCES entitlements.purchases (store, original_transaction_id)
                    );
                    CREATE INDEX transactions_by_customer ON entitlements.transactions (customer_id);

                    -- The distinct devices that presented a purchase; counted against the app's device limit.
                    CREATE TABLE entitlements.purchase_devices (
                        store text NOT NULL,
                        original_transaction_id text NOT NULL,
                        device_id text NOT NULL,
                        customer_id uuid NOT NULL,
                        first_seen timestamptz NOT NULL DEFAULT now(),
                        last_seen timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (store, original_transaction_id, device_id),
                        FOREIGN KEY (store, original_transaction_id)
                            REFERENCES entitlements.purchases (store, original_transaction_id)
                    );

                    -- Consumable balances. The ledger is the truth; the balance is its sum, kept in the same transaction.
                    CREATE TABLE entitlements.balances (
                        customer_id uuid NOT NULL REFERENCES entitlements.customers (customer_id),
                        product_id text NOT NULL,
                        app_id text NOT NULL,
                        balance bigint NOT NULL DEFAULT 0,
                        updated_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (customer_id, product_id)
                    );
                    CREATE TABLE entitlements.ledger (
                        line_id bigserial PRIMARY KEY,
                        app_id text NOT NULL,
                        customer_id uuid NOT NULL REFERENCES entitlements.customers (customer_id),
                        product_id text NOT NULL,
                        delta bigint NOT NULL CHECK (delta <> 0),
                        reason text NOT NULL CHECK (reason IN (
                            'purchase', 'consume', 'refund', 'transfer_in', 'transfer_out', 'merge_in', 'merge_out')),
                        store text,
                        transaction_id text,
                        idempotency_key text,
                        created_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE INDEX ledger_by_customer ON entitlements.ledger (customer_id, product_id);

                    -- Consume requests by idempotency key: the first response is kept and answered again.
                    CREATE TABLE entitlements.idempotency_keys (
                        app_id text NOT NULL,
                        idempotency_key text NOT NULL,
                        request_hash text NOT NULL,
                        status integer NOT NULL,
                        response text NOT NULL,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (app_id, idempotency_key)
                    );

                    -- Entitlements granted by the developer rather than a purchase.
                    CREATE TABLE entitlements.promotional_grants (
                        grant_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                        app_id text NOT NULL,
                        customer_id uuid NOT NULL REFERENCES entitlements.customers (customer_id),
                        entitlement_id text NOT NULL,
                        starts_at timestamptz NOT NULL DEFAULT now(),
                        expires_at timestamptz NOT NULL,
                        revoked_at timestamptz,
                        note text,
                        created_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE INDEX promotional_grants_by_customer ON entitlements.promotional_grants (customer_id);

                    -- The transactional outbox: every change writes its event in the same transaction.
                    CREATE TABLE entitlements.events (
                        event_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                        sequence bigserial UNIQUE,
                        app_id text NOT NULL,
                        customer_id uuid NOT NULL,
                        app_user_id text,
                        type text NOT NULL,
                        environment text,
                        payload jsonb NOT NULL,
                        created_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE INDEX events_by_customer ON entitlements.events (customer_id, sequence);
                    CREATE INDEX events_by_app ON entitlements.events (app_id, sequence);

                    -- One delivery per event to the app's webhook; claimed by dispatchers with FOR UPDATE SKIP LOCKED.
                    CREATE TABLE entitlements.webhook_deliveries (
                        event_id uuid PRIMARY KEY REFERENCES entitlements.events (event_id),
                        app_id text NOT NULL,
                        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
                        attempts integer NOT NULL DEFAULT 0,
                        next_attempt_at timestamptz NOT NULL DEFAULT now(),
                        last_status integer,
                        last_error text,
                        delivered_at timestamptz,
                        created_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE INDEX webhook_deliveries_due ON entitlements.webhook_deliveries (next_attempt_at)
                        WHERE state = 'pending';

                    -- Whole-second UTC ISO 8601, the one date format of every Shopkeeper response.
                    CREATE FUNCTION entitlements.iso(t timestamptz) RETURNS text
                    LANGUAGE sql IMMUTABLE AS $$
                        SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                    $$;

                    -- Published for other services (read only).
                    CREATE VIEW entitlements.customer_aliases_v1 AS
                    SELECT app_id, app_user_id, customer_id FROM entitlements.aliases;
                    CREATE VIEW entitlements.purchases_v1 AS
                    SELECT app_id, customer_id, store, original_transaction_id, store_product_id, product_id, product_type,
                           environment, purchase_date, expires_date, revoked_at, revocation_reason
                    FROM entitlements.purchases;
                    """
            ),
            Migration(
                "0002_customer_change_notifications",
                sql: """
                    -- Every change to what a customer's info shows notifies the channel with the customer's id, at commit;
                    -- every replica listens and drops its cached info of that customer.
                    CREATE FUNCTION entitlements.notify_customer_change() RETURNS trigger
                    LANGUAGE plpgsql AS $$
                    BEGIN
                        IF TG_OP <> 'INSERT' THEN
                            PERFORM pg_notify('entitlements_customer_changed', OLD.customer_id::text);
                        END IF;
                        IF TG_OP <> 'DELETE' THEN
                            PERFORM pg_notify('entitlements_customer_changed', NEW.customer_id::text);
                        END IF;
                        RETURN NULL;
                    END;
                    $$;
                    CREATE TRIGGER customers_changed AFTER INSERT OR UPDATE OR DELETE ON entitlements.customers
                        FOR EACH ROW EXECUTE FUNCTION entitlements.notify_customer_change();
                    CREATE TRIGGER aliases_changed AFTER INSERT OR UPDATE OR DELETE ON entitlements.aliases
                        FOR EACH ROW EXECUTE FUNCTION entitlements.notify_customer_change();
                    CREATE TRIGGER purchases_changed AFTER INSERT OR UPDATE OR DELETE ON entitlements.purchases
                        FOR EACH ROW EXECUTE FUNCTION entitlements.notify_customer_change();
                    CREATE TRIGGER balances_changed AFTER INSERT OR UPDATE OR DELETE ON entitlements.balances
                        FOR EACH ROW EXECUTE FUNCTION entitlements.notify_customer_change();
                    CREATE TRIGGER promotional_grants_changed AFTER INSERT OR UPDATE OR DELETE
                        ON entitlements.promotional_grants
                        FOR EACH ROW EXECUTE FUNCTION entitlements.notify_customer_change();
                    """
            ),
            Migration(
                "0003_applied_transactions_view",
                sql: """
                    -- Published for the verifier: a store transaction in this view is applied, whatever the verifier's own
                    -- record of it says (it marks its facts from this view in the background).
                    CREATE VIEW entitlements.applied_transactions_v1 AS
                    SELECT app_id, store, transaction_id, applied_at FROM entitlements.transactions;
                    """
            ),
            Migration(
                "0004_subscription_change_relay",
                sql: """
                    -- How far each relay has read another service's outbox, in that outbox's (tx, sequence) order.
                    CREATE TABLE entitlements.relay_cursors (
                        name text PRIMARY KEY,
                        tx xid8 NOT NULL,
                        sequence bigint NOT NULL
                    );
                    -- Subscription changes relayed before their purchase had an owner here (the store's news came first):
                    -- turned into events once a customer owns the purchase, dropped after a week.
                    CREATE TABLE entitlements.parked_changes (
                        sequence bigint PRIMARY KEY,
                        app_id text NOT NULL,
                        type text NOT NULL,
                        store text NOT NULL,
                        original_transaction_id text NOT NULL,
                        environment text,
                        payload jsonb NOT NULL,
                        created_at timestamptz NOT NULL
                    );
                    CREATE INDEX parked_changes_by_purchase
                        ON entitlements.parked_changes (store, original_transaction_id);
                    """
            ),
            Migration(
                "0010_content_claims",
                sql: """
                    -- Free products claimed for their content (POST /v1/content/{product_id}/claim through the content
                    -- service, which checks the catalog; the insert here checks it again). One claim per customer and product.
                    CREATE TABLE entitlements.content_claims (
                        app_id text NOT NULL,
                        customer_id uuid NOT NULL REFERENCES entitlements.customers (customer_id),
                        product_id text NOT NULL,
                        claimed_at timestamptz NOT NULL DEFAULT now(),
                        revoked_at timestamptz,
                        PRIMARY KEY (customer_id, product_id)
                    );
                    """
            ),
            Migration(
                "0011_trial_conversions",
                sql: """
                    -- Customers whose app trial (subscriptions.trials_v1) was followed by a purchase of the trial's
                    -- subscription group: one trial_converted event each, written with the purchase.
                    CREATE TABLE entitlements.trial_conversions (
                        app_id text NOT NULL,
                        customer_id uuid NOT NULL,
                        product_id text NOT NULL,
                        transaction_id text NOT NULL,
                        converted_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (app_id, customer_id)
                    );
                    """
            ),
            Migration(
                "0012_refund_reversals",
                sql: """
                    -- When the store reversed a refund or revocation of the purchase (Apple's REFUND_REVERSED): a
                    -- revocation dated at or before it is the reversed one, never news.
                    ALTER TABLE entitlements.purchases ADD COLUMN revocation_reversed_at timestamptz;
                    -- A reversed refund credits back the units the refund clawed back.
                    ALTER TABLE entitlements.ledger DROP CONSTRAINT ledger_reason_check;
                    ALTER TABLE entitlements.ledger ADD CONSTRAINT ledger_reason_check CHECK (reason IN (
                        'purchase', 'consume', 'refund', 'refund_reversed', 'transfer_in', 'transfer_out', 'merge_in',
                        'merge_out'));
                    """
            ),
            Migration(
                "0013_one_writer_per_customer",
                sql: """
                    -- One writer per customer. Every change to a customer's purchases, balances, grants or ids first
                    -- takes this transaction-scoped lock on each customer it may touch, all in one call and in one
                    -- order (the key), before it locks or writes any row. Two changes therefore never wait on each
                    -- other in a circle; a change that finds, under its locks, a customer it did not lock takes that
                    -- one only if it is free at once (`try_lock_customers`), else it starts again with the full set.
                    -- Keys live in the two-integer advisory key space (namespace 'SHKP'), apart from the migration
                    -- lock; two customers whose ids hash alike only share a lock, which costs waiting, never safety.
                    CREATE FUNCTION entitlements.lock_customers(p_ids uuid[]) RETURNS void
                    LANGUAGE plpgsql AS $$
                    DECLARE
                        k integer;
                    BEGIN
                        FOR k IN SELECT DISTINCT hashtext(id::text) FROM unnest(p_ids) AS id ORDER BY 1 LOOP
                            PERFORM pg_advisory_xact_lock(1397246800, k);
                        END LOOP;
                    END;
                    $$;

                    CREATE FUNCTION entitlements.try_lock_customers(p_ids uuid[]) RETURNS boolean
                    LANGUAGE plpgsql AS $$
                    DECLARE
                        k integer;
                    BEGIN
                        FOR k IN SELECT DISTINCT hashtext(id::text) FROM unnest(p_ids) AS id ORDER BY 1 LOOP
                            IF NOT pg_try_advisory_xact_lock(1397246800, k) THEN
                                RETURN false;
                            END IF;
                        END LOOP;
                        RETURN true;
                    END;
                    $$;

                    -- Consumable units a refund took back: at most what was left of them, so a balance never goes
                    -- below zero; a reversal of the refund credits exactly these again.
                    ALTER TABLE entitlements.purchases ADD COLUMN clawed_back bigint;
                    -- Customers the purchase was transferred away from. Only a restore moves it back to one of them,
                    -- so two customers presenting one proof cannot make it bounce between them.
                    ALTER TABLE entitlements.purchases ADD COLUMN previous_owners uuid[] NOT NULL DEFAULT '{}';
                    """
            ),
            Migration(
                "0014_sealed_webhook_secrets",
                sql: """
                    -- Webhook signing secrets are sealed at rest (AES-GCM under a key derived from SHOPKEEPER_MASTER_KEY,
                    -- the app id bound as associated data), like store credentials and customer token secrets.
                    ALTER TABLE entitlements.app_settings ADD COLUMN webhook_secret_sealed bytea;
                    ALTER TABLE entitlements.app_settings ADD COLUMN webhook_secret_key_id text;
                    -- The plaintext column is renamed, not kept under its old name: a replica still running the previous
                    -- release fails its webhook statements (its dispatcher claims nothing, its settings writes answer 500)
                    -- instead of reading NULL as "no webhook" (marking deliveries dead) or writing a new plaintext secret.
                    -- Every replica of this release seals what is left in it before its dispatcher's first claim, and
                    -- clears it; the constraint (not validated for the rows already there) refuses any new plaintext.
                    -- A later release drops the column.
                    ALTER TABLE entitlements.app_settings RENAME COLUMN webhook_secret TO webhook_secret_unsealed;
                    ALTER TABLE entitlements.app_settings ADD CONSTRAINT webhook_secret_never_unsealed
                        CHECK (webhook_secret_unsealed IS NULL) NOT VALID;
                    """
            ),
            Migration(
                "0015_fair_webhook_dispatch",
                sql: """
                    -- Until when a dispatcher holds the delivery (an attempt in flight); NULL when none does. The claim
                    -- counts these per app to keep each app under its limit of attempts in flight.
                    ALTER TABLE entitlements.webhook_deliveries ADD COLUMN lease_until timestamptz;
                    CREATE INDEX webhook_deliveries_leased ON entitlements.webhook_deliveries (app_id)
                        WHERE state = 'pending' AND lease_until IS NOT NULL;
                    CREATE INDEX webhook_deliveries_due_by_app
                        ON entitlements.webhook_deliveries (app_id, next_attempt_at) WHERE state = 'pending';
                    -- Tenants read `last_error`: only coarse reasons from now on, never a receiver's text or an error's
                    -- description. Reasons recorded before are reduced to the same set.
                    UPDATE entitlements.webhook_deliveries SET last_error = CASE
                            WHEN last_status IS NOT NULL THEN 'HTTP ' || last_status
                            WHEN last_error = 'no webhook configured' THEN last_error
                            WHEN last_error = 'no answer within the timeout' THEN 'timeout'
                            WHEN last_error LIKE 'webhook_url refused%' THEN 'destination refused'
                            ELSE 'connection failed' END
                    WHERE last_error IS NOT NULL;
                    """
            ),
            Migration(
                "0016_app_events",
                sql: """
                    -- App-level events (consent rescinded, external purchase tokens) name no customer: no customer_id, no
                    -- app_user_id. Customer histories and the events listing by app_user_id select by customer, so they
                    -- never show them; the app's event listing and its webhook do.
                    ALTER TABLE entitlements.events ALTER COLUMN customer_id DROP NOT NULL;
                    -- What makes an event once-only when its source may deliver it again (a store notification's id);
                    -- NULL for the events of changes that are once-only by themselves.
                    ALTER TABLE entitlements.events ADD COLUMN idempotency_key text;
                    CREATE UNIQUE INDEX events_idempotency_key ON entitlements.events (app_id, idempotency_key)
                        WHERE idempotency_key IS NOT NULL;
                    """
            ),
            Migration(
                "0017_local_testing_environments",
                sql: """
                    -- Purchases signed by Xcode's StoreKit Testing keep their environment (`xcode`, `local_testing`),
                    -- so that they are never mistaken for the sandbox's, let alone for real money.
                    ALTER TABLE entitlements.purchases DROP CONSTRAINT purchases_environment_check;
                    ALTER TABLE entitlements.purchases ADD CONSTRAINT purchases_environment_check
                        CHECK (environment IN ('production', 'sandbox', 'xcode', 'local_testing'));
                    """
            ),
            Migration(
                "0018_products_owned_without_purchase",
                sql: """
                    -- Customer info lists the products a customer owns without a store purchase (`product_grants`): free
                    -- claims (content_claims) and what the customer's app transactions prove, worked out when the info is
                    -- rendered from the catalog of the moment (`included_in_variants`, `grandfathered_below_version`), as
                    -- purchases' entitlements are. A change to either notifies the customer's cached info.
                    CREATE TRIGGER content_claims_changed AFTER INSERT OR UPDATE OR DELETE ON entitlements.content_claims
                        FOR EACH ROW EXECUTE FUNCTION entitlements.notify_customer_change();

                    -- StoreKit 2 app transactions (one per Apple account and app) and the customer each belongs to now. It
                    -- moves between customers by the app's transfer policy, as a purchase does.
                    CREATE TABLE entitlements.app_transactions (
                        app_id text NOT NULL,
                        app_transaction_id text NOT NULL,
                        customer_id uuid NOT NULL REFERENCES entitlements.customers (customer_id),
                        environment text NOT NULL,
                        -- The app variant whose bundle signed it (`NULL`: the app's own bundle id).
                        variant text,
                        original_application_version text,
                        original_purchase_date timestamptz,
                        previous_owners uuid[] NOT NULL DEFAULT '{}',
                        first_seen timestamptz NOT NULL DEFAULT now(),
                        updated_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (app_id, app_transaction_id)
                    );
                    CREATE INDEX app_transactions_by_customer ON entitlements.app_transactions (customer_id);
                    CREATE TRIGGER app_transactions_changed AFTER INSERT OR UPDATE OR DELETE ON entitlements.app_transactions
                        FOR EACH ROW EXECUTE FUNCTION entitlements.notify_customer_change();

                    -- A dotted numeric version as an array that compares as app versions do (`2` = `2.0`, `2` < `2.1`):
                    -- trailing zero components dropped; NULL for anything else (`1.0b3` is never below a version).
                    CREATE FUNCTION entitlements.version_key(v text) RETURNS integer[]
                    LANGUAGE sql IMMUTABLE AS $$
                        SELECT CASE WHEN v ~ '^[0-9]{1,6}(\\.[0-9]{1,6}){0,3}$'
                            THEN string_to_array(regexp_replace(v, '(\\.0+)+$', ''), '.')::integer[] END
                    $$;

                    -- The app version (the purchase request's `app_version`) a purchase was first presented from.
                    ALTER TABLE entitlements.purchases ADD COLUMN app_version text;
                    """
            ),
            Migration(
                "0019_customer_search_indexes",
                sql: """
                    -- Support's customer search (GET /v1/admin/customers): an id's beginning (LIKE 'x%' needs the
                    -- pattern operator class under a non-C collation), a transaction id, an original transaction id, each
                    -- within one app.
                    CREATE INDEX aliases_by_prefix ON entitlements.aliases (app_id, app_user_id text_pattern_ops);
                    CREATE INDEX transactions_by_app_and_id ON entitlements.transactions (app_id, transaction_id);
                    CREATE INDEX purchases_by_app_and_original
                        ON entitlements.purchases (app_id, original_transaction_id);
                    """
            ),
        ] + reports + customerDocuments + storedCustomerInfoForReaders + fewerRoundTrips + aliasOrigins
        + trialConversionsMoved + newPurchaseApply + storedCustomerInfoByProduct + typeChecks
        + redemptionCodes + stripeSales + appliedRevocations + exchangeRates + transactionsView + webhookEndpoints
        + eventExperiments + playEstimates + playPriceGuard + partialRefunds
}
