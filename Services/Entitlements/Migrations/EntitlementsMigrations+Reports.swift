import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// The sales, usage and consumables reports' summaries, kept off the request path.
    static let reports: [Migration] = [
        Migration(
            "0020_reports",
            sql: """
                -- Reports (GET /v1/admin/reports/sales, /usage, /consumables) are SQL over the facts recorded here.
                -- Each applied store transaction keeps what the reports group and filter by: its storefront (as the
                -- store spells it), whether it was bought or family shared, and, for the transaction whose refund or
                -- revocation revoked its purchase, when that happened (and when the store reversed it).
                ALTER TABLE entitlements.transactions
                    ADD COLUMN storefront text,
                    ADD COLUMN ownership_type text NOT NULL DEFAULT 'purchased',
                    ADD COLUMN revocation_date timestamptz,
                    ADD COLUMN revocation_reversed_at timestamptz,
                    ADD COLUMN changed_tx xid8;
                CREATE INDEX transactions_by_purchase ON entitlements.transactions (store, original_transaction_id);
                UPDATE entitlements.transactions t SET ownership_type = p.ownership_type
                FROM entitlements.purchases p
                WHERE p.store = t.store AND p.original_transaction_id = t.original_transaction_id
                  AND p.ownership_type <> 'purchased';
                -- A purchase revoked before this release: its refund goes to its last transaction dated at or before it.
                UPDATE entitlements.transactions t SET revocation_date = p.revoked_at
                FROM entitlements.purchases p
                WHERE p.revoked_at IS NOT NULL
                  AND t.store = p.store AND t.original_transaction_id = p.original_transaction_id
                  AND t.transaction_id = (
                      SELECT l.transaction_id FROM entitlements.transactions l
                      WHERE l.store = p.store AND l.original_transaction_id = p.original_transaction_id
                      ORDER BY l.purchase_date <= p.revoked_at DESC, l.purchase_date DESC, l.transaction_id DESC
                      LIMIT 1);
                -- Storefronts of the transactions applied before, from the verifier's facts when its schema is here.
                DO $$
                BEGIN
                    IF to_regclass('verifier.transactions_v1') IS NOT NULL THEN
                        UPDATE entitlements.transactions t SET storefront = v.fact->>'storefront'
                        FROM verifier.transactions_v1 v
                        WHERE v.store = t.store AND v.transaction_id = t.transaction_id
                          AND v.fact->>'storefront' IS NOT NULL;
                    END IF;
                END;
                $$;

                -- `changed_tx`: the transaction that last wrote the row (NULL: before this release). The reports'
                -- daily summaries are refreshed from the rows changed since they were last built (DailyRollup).
                ALTER TABLE entitlements.transactions ALTER COLUMN changed_tx SET DEFAULT pg_current_xact_id();
                ALTER TABLE entitlements.ledger ADD COLUMN changed_tx xid8;
                ALTER TABLE entitlements.ledger ALTER COLUMN changed_tx SET DEFAULT pg_current_xact_id();
                CREATE FUNCTION entitlements.touch_changed_tx() RETURNS trigger
                LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW IS DISTINCT FROM OLD THEN
                        NEW.changed_tx := pg_current_xact_id();
                    END IF;
                    RETURN NEW;
                END;
                $$;
                CREATE TRIGGER transactions_changed_tx BEFORE UPDATE ON entitlements.transactions
                    FOR EACH ROW EXECUTE FUNCTION entitlements.touch_changed_tx();
                CREATE TRIGGER ledger_changed_tx BEFORE UPDATE ON entitlements.ledger
                    FOR EACH ROW EXECUTE FUNCTION entitlements.touch_changed_tx();

                -- Reports count in UTC days.
                CREATE FUNCTION entitlements.utc_day(t timestamptz) RETURNS date
                LANGUAGE sql IMMUTABLE AS $$ SELECT (t AT TIME ZONE 'UTC')::date $$;
                CREATE FUNCTION entitlements.utc_start(d date) RETURNS timestamptz
                LANGUAGE sql IMMUTABLE AS $$ SELECT d::timestamp AT TIME ZONE 'UTC' $$;

                -- A day's facts, for the summaries; what changed since a summary was built.
                CREATE INDEX transactions_by_app_day ON entitlements.transactions (app_id, purchase_date);
                CREATE INDEX transactions_refunds ON entitlements.transactions (app_id, revocation_date)
                    WHERE revocation_date IS NOT NULL;
                CREATE INDEX transactions_changed ON entitlements.transactions (app_id, changed_tx);
                CREATE INDEX ledger_by_app_day ON entitlements.ledger (app_id, created_at);
                CREATE INDEX ledger_changed ON entitlements.ledger (app_id, changed_tx);

                -- Each app's daily summaries: closed UTC days only (today is worked out from the facts at each read),
                -- every fact changed by a transaction below `tx` included, every day through `built_through` built.
                CREATE TABLE entitlements.report_rollups (
                    app_id text NOT NULL,
                    rollup text NOT NULL,
                    tx xid8 NOT NULL,
                    built_through date NOT NULL,
                    built_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, rollup)
                );
                CREATE TABLE entitlements.report_sales_days (
                    app_id text NOT NULL,
                    day date NOT NULL,
                    environment text NOT NULL,
                    store text NOT NULL,
                    product_id text,
                    store_product_id text NOT NULL,
                    storefront text,
                    currency text,
                    purchases bigint NOT NULL,
                    renewals bigint NOT NULL,
                    units bigint NOT NULL,
                    revenue_milliunits bigint NOT NULL,
                    refunds bigint NOT NULL,
                    refunded_milliunits bigint NOT NULL
                );
                CREATE INDEX report_sales_days_by_day ON entitlements.report_sales_days (app_id, day);
                CREATE TABLE entitlements.report_usage_days (
                    app_id text NOT NULL,
                    day date NOT NULL,
                    environment text NOT NULL,
                    product_id text,
                    store_product_id text NOT NULL,
                    app_version text,
                    purchases bigint NOT NULL,
                    renewals bigint NOT NULL,
                    units bigint NOT NULL
                );
                CREATE INDEX report_usage_days_by_day ON entitlements.report_usage_days (app_id, day);
                CREATE TABLE entitlements.report_consumable_days (
                    app_id text NOT NULL,
                    day date NOT NULL,
                    product_id text NOT NULL,
                    bought bigint NOT NULL,
                    spent bigint NOT NULL,
                    refunded bigint NOT NULL
                );
                CREATE INDEX report_consumable_days_by_day ON entitlements.report_consumable_days (app_id, day);

                -- Published for the subscriptions service's report: the app trials that were followed by a purchase.
                CREATE VIEW entitlements.trial_conversions_v1 AS
                SELECT app_id, customer_id, product_id, converted_at FROM entitlements.trial_conversions;
                CREATE INDEX trial_conversions_by_day ON entitlements.trial_conversions (app_id, converted_at);
                """
        )
    ]
}
