-- Many customers of the demo shop, in bulk, for Benchmarks/customers/run:
--   psql -v app=<app id> -v bundle=<bundle id> -v n=<customers> -f seed.sql
-- Customer i is `bench-<i>` (0 <= i < n), last seen a day ago (so a read is an app launch after a while, which
-- refreshes `last_seen`), with 1 to 3 App Store purchases of the demo catalog (the gardens and seeds
-- are non-consumables with entitlements, the fertilizer a consumable of 10 doses): written straight into the
-- entitlements service's tables as its apply path leaves them (customer, alias, purchase, transaction, balance,
-- ledger line, the customer's stored info forgotten). Deterministic (hashint4 of row numbers), so two runs seed the
-- same customers. Triggers and foreign keys are off for the session (session_replication_role), which only a bulk
-- load may do.
SET session_replication_role = replica;
SET synchronous_commit = off;
SET work_mem = '256MB';
SET maintenance_work_mem = '512MB';

CREATE FUNCTION pg_temp.h(x int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT hashint4(x) & 2147483647 $$;

CREATE TEMP TABLE bench_products (idx int PRIMARY KEY, product_id text, kind text, units int);
INSERT INTO bench_products VALUES
    (0, 'extra_garden', 'non_consumable', NULL), (1, 'seeds_sunflower', 'non_consumable', NULL),
    (2, 'seeds_tulip', 'non_consumable', NULL), (3, 'seeds_orchid', 'non_consumable', NULL),
    (4, 'greenhouse', 'non_consumable', NULL), (5, 'fertilizer_10', 'consumable', 10);

INSERT INTO entitlements.customers (customer_id, app_id, first_seen, last_seen)
SELECT md5(:'app' || 'bench' || i)::uuid, :'app', now() - interval '30 days', now() - interval '1 day'
FROM generate_series(0, :n - 1) AS i;

INSERT INTO entitlements.aliases (app_id, app_user_id, customer_id, created_at)
SELECT :'app', 'bench-' || i, md5(:'app' || 'bench' || i)::uuid, now() - interval '30 days'
FROM generate_series(0, :n - 1) AS i;

-- Purchase k of customer i: a different product each (k-th after a start of the customer's own).
CREATE TEMP TABLE bench_buys AS
SELECT i, k, md5(:'app' || 'bench' || i)::uuid AS customer, p.product_id, p.kind, p.units,
       '2' || lpad((i * 3 + k)::text, 15, '0') AS transaction_id,
       now() - make_interval(days => 1 + pg_temp.h(i * 3 + k) % 28, secs => pg_temp.h(i * 7 + k) % 86400) AS bought
FROM generate_series(0, :n - 1) AS i
CROSS JOIN LATERAL generate_series(0, pg_temp.h(i) % 3) AS k
JOIN bench_products p ON p.idx = (pg_temp.h(i * 11) % 6 + k) % 6;

INSERT INTO entitlements.transactions (
    store, transaction_id, original_transaction_id, app_id, customer_id, environment, store_product_id, quantity,
    purchase_date, expires_date, price_milliunits, currency, applied_at, storefront, ownership_type)
SELECT 'app_store', b.transaction_id, b.transaction_id, :'app', b.customer, 'production',
       :'bundle' || '.' || b.product_id, 1, b.bought, NULL, CASE WHEN b.kind = 'consumable' THEN 990 ELSE 2990 END,
       'USD', b.bought + interval '1 second', 'USA', 'purchased'
FROM bench_buys b;

INSERT INTO entitlements.purchases (
    store, original_transaction_id, app_id, customer_id, store_product_id, product_id, product_type, environment,
    ownership_type, purchase_date, latest_transaction_id, quantity, expires_date, credited, app_version,
    created_at, updated_at)
SELECT 'app_store', b.transaction_id, :'app', b.customer, :'bundle' || '.' || b.product_id, b.product_id, b.kind,
       'production', 'purchased', b.bought, b.transaction_id, 1, NULL, b.units, '1.0', b.bought, b.bought
FROM bench_buys b;

INSERT INTO entitlements.ledger (app_id, customer_id, product_id, delta, reason, store, transaction_id, created_at)
SELECT :'app', b.customer, b.product_id, b.units, 'purchase', 'app_store', b.transaction_id, b.bought
FROM bench_buys b WHERE b.kind = 'consumable';

INSERT INTO entitlements.balances (customer_id, product_id, app_id, balance, updated_at)
SELECT b.customer, b.product_id, :'app', sum(b.units), max(b.bought)
FROM bench_buys b WHERE b.kind = 'consumable'
GROUP BY b.customer, b.product_id;

-- Each customer's stored info as the change triggers (off for this load) leave it after the writes above: forgotten (a
-- row with a new version and no body, entitlements.forget_customer_document), so that nothing is stored and every
-- first read renders, as after an upgrade or a catalog edit. Without these rows the table is nearly empty when the
-- services first plan their statements, and a prepared statement keeps the plan it settled on then: the stored read
-- hashed the whole table (a sequential scan) at every read while the run filled it, until autovacuum's ANALYZE
-- (up to a minute later) had the plans made again; a measurement of that, not of the render.
INSERT INTO entitlements.customer_documents (customer_id, version, forgotten_by)
SELECT md5(:'app' || 'bench' || i)::uuid, nextval('entitlements.customer_document_versions'), pg_current_xact_id()
FROM generate_series(0, :n - 1) AS i
ON CONFLICT (customer_id) DO NOTHING;

ANALYZE entitlements.customers, entitlements.aliases, entitlements.purchases, entitlements.transactions,
    entitlements.balances, entitlements.ledger, entitlements.customer_documents;

SELECT count(*) AS customers, (SELECT count(*) FROM bench_buys) AS purchases FROM entitlements.aliases
WHERE app_id = :'app' AND app_user_id LIKE 'bench-%';
