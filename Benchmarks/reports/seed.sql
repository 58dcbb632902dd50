-- A year of facts for one app, in bulk, for Benchmarks/reports/run: psql -v app=<app id> -v n=<transactions>.
-- Deterministic (hashint4 of row numbers, no random()), so two runs seed the same figures. Written straight into
-- the services' tables, as their apply paths would have left them; triggers and foreign keys are off for the session
-- (session_replication_role), which only a bulk load may do.
SET session_replication_role = replica;
SET synchronous_commit = off;
SET work_mem = '256MB';
SET maintenance_work_mem = '512MB';

-- A pseudo-random non-negative integer of `x`.
CREATE FUNCTION pg_temp.h(x int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT hashint4(x) & 2147483647 $$;

-- The year: 365 UTC days ending today, today up to now.
CREATE TEMP TABLE bench_clock AS
SELECT now() AS now, (date_trunc('day', now() AT TIME ZONE 'UTC') - interval '364 days') AT TIME ZONE 'UTC' AS start;

CREATE TEMP TABLE bench_products (idx int PRIMARY KEY, product_id text, kind text, usd int, units int);
INSERT INTO bench_products VALUES
    (0, 'coins_100', 'consumable', 990, 100), (1, 'coins_500', 'consumable', 3990, 500),
    (2, 'coins_1200', 'consumable', 7990, 1200), (3, 'gems_50', 'consumable', 1990, 50),
    (4, 'garden', 'non_consumable', 4990, 0), (5, 'greenhouse', 'non_consumable', 9990, 0),
    (6, 'seeds_pack', 'non_consumable', 2990, 0), (7, 'theme_night', 'non_consumable', 1990, 0),
    (8, 'pro_monthly', 'auto_renewable', 4990, 0), (9, 'pro_yearly', 'auto_renewable', 39990, 0),
    (10, 'plus_monthly', 'auto_renewable', 2990, 0), (11, 'plus_yearly', 'auto_renewable', 19990, 0);

-- Storefronts by weight (20 slots): Apple's code, Google's, the currency and its price of one dollar.
CREATE TEMP TABLE bench_storefronts AS
SELECT (row_number() OVER (ORDER BY v.apple, g) - 1)::int AS idx, v.apple, v.google, v.currency, v.rate
FROM (VALUES
    ('USA', 'US', 'USD', 1.0, 8), ('DEU', 'DE', 'EUR', 0.95, 2), ('FRA', 'FR', 'EUR', 0.95, 2),
    ('GBR', 'GB', 'GBP', 0.8, 2), ('JPN', 'JP', 'JPY', 150, 1), ('BRA', 'BR', 'BRL', 5.5, 1),
    ('CAN', 'CA', 'CAD', 1.35, 1), ('AUS', 'AU', 'AUD', 1.5, 1), ('IND', 'IN', 'INR', 85, 1),
    ('KOR', 'KR', 'KRW', 1350, 1)
) AS v(apple, google, currency, rate, weight), generate_series(1, v.weight) AS g;

-- The app versions in the stores, one after the other.
CREATE TEMP TABLE bench_versions AS
SELECT * FROM (VALUES (0, '2.0'), (1, '2.1'), (2, '2.2'), (3, '2.3'), (4, '2.10'), (5, '3.0')) AS v(idx, version);

INSERT INTO entitlements.customers (customer_id, app_id, first_seen, last_seen)
SELECT md5(:'app' || 'c' || i)::uuid, :'app', c.start, c.start
FROM generate_series(0, 249999) AS i, bench_clock c;

-- Subscriptions: 6 % of the transactions' count of them, each a chain of periods (a 7-day trial first for 3 in
-- 10), monthly or yearly, 1 to 16 paid periods wanted (those that start before now).
CREATE TEMP TABLE bench_subscriptions AS
SELECT s,
       CASE WHEN s % 10 < 5 THEN 8 WHEN s % 10 < 8 THEN 10 WHEN s % 10 = 8 THEN 9 ELSE 11 END AS product,
       s % 10 < 3 AS trial,
       c.start + make_interval(days => pg_temp.h(s) % 364, secs => pg_temp.h(s * 31) % 86400) AS started,
       1 + pg_temp.h(s * 17) % 16 AS wanted,
       CASE WHEN s % 3 = 0 THEN 'play_store' ELSE 'app_store' END AS store,
       pg_temp.h(s * 7) % 20 AS storefront,
       CASE WHEN s % 50 = 0 THEN 'sandbox' ELSE 'production' END AS environment,
       md5(:'app' || 'c' || pg_temp.h(s * 13) % 250000)::uuid AS customer
FROM generate_series(1, :n * 6 / 100) AS s, bench_clock c;

CREATE TEMP TABLE bench_periods AS
SELECT p.*,
       CASE WHEN p.store = 'play_store' THEN 'GPA.3000-' || p.s || CASE WHEN p.k = p.first THEN '' ELSE '..' || (p.k - p.first) END
            ELSE 's' || p.s || '.' || p.k END AS transaction_id,
       CASE WHEN p.store = 'play_store' THEN 'GPA.3000-' || p.s ELSE 's' || p.s || '.' || p.first END AS original_transaction_id,
       CASE WHEN pg_temp.h(p.s * 1000 + p.k) % 100 = 0 AND p.k > 0 THEN least(p.starts_at + interval '2 days', c.now - interval '1 minute') END AS revoked_at
FROM (
    SELECT b.*, k, CASE WHEN b.trial THEN 0 ELSE 1 END AS first,
           CASE WHEN k = 0 THEN 'trial' ELSE 'normal' END AS period_type,
           CASE WHEN k = 0 THEN b.started
                ELSE b.started + CASE WHEN b.trial THEN interval '7 days' ELSE interval '0' END
                     + (k - 1) * CASE WHEN b.product IN (8, 10) THEN interval '30 days' ELSE interval '365 days' END
           END AS starts_at,
           CASE WHEN k = 0 THEN interval '7 days'
                WHEN b.product IN (8, 10) THEN interval '30 days' ELSE interval '365 days' END AS length
    FROM bench_subscriptions b, generate_series(CASE WHEN b.trial THEN 0 ELSE 1 END, b.wanted) AS k
) p, bench_clock c
WHERE p.starts_at < c.now;

SELECT :n - count(*) AS one_time FROM bench_periods \gset

-- One-time purchases: consumables (7 in 10) and non-consumables, more of them as the year goes on.
CREATE TEMP TABLE bench_sales AS
SELECT i, p.idx AS product, p.product_id, p.kind, p.units,
       CASE WHEN i % 20 < 13 THEN 'app_store' ELSE 'play_store' END AS store,
       pg_temp.h(i * 7) % 20 AS storefront,
       CASE WHEN i % 50 = 1 THEN 'sandbox' ELSE 'production' END AS environment,
       CASE WHEN p.kind = 'consumable' AND i % 7 = 0 THEN 2 ELSE 1 END AS quantity,
       CASE WHEN p.kind = 'non_consumable' AND i % 97 = 0 THEN 'family_shared' ELSE 'purchased' END AS ownership,
       least(c.start + make_interval(days => floor(364.999 * sqrt((pg_temp.h(i) % 1000000) / 1e6))::int,
                                     secs => pg_temp.h(i * 3) % 86400), c.now - interval '1 second') AS purchased,
       md5(:'app' || 'c' || pg_temp.h(i * 13) % 250000)::uuid AS customer
FROM generate_series(1, :one_time) AS i
JOIN bench_products p ON p.idx = CASE WHEN i % 10 < 7 THEN (i / 10) % 4 ELSE 4 + (i / 10) % 4 END,
     bench_clock c;

-- Applied store transactions: Google reports no price (Shopkeeper stores none for it), Apple its own.
INSERT INTO entitlements.transactions (
    store, transaction_id, original_transaction_id, app_id, customer_id, environment, store_product_id, quantity,
    purchase_date, expires_date, price_milliunits, currency, applied_at, storefront, ownership_type, revocation_date)
SELECT t.store, t.id, t.id, :'app', t.customer, t.environment,
       CASE WHEN t.store = 'app_store' THEN 'com.bench.' || t.product_id ELSE t.product_id END, t.quantity,
       t.purchased, NULL,
       CASE WHEN t.store = 'app_store' THEN round(p.usd * f.rate)::bigint * t.quantity END,
       CASE WHEN t.store = 'app_store' THEN f.currency END,
       t.purchased + interval '2 seconds', CASE WHEN t.store = 'app_store' THEN f.apple ELSE f.google END,
       t.ownership,
       CASE WHEN t.i % 40 = 0 THEN least(t.purchased + make_interval(days => (t.i / 40) % 14), c.now - interval '1 minute') END
FROM (SELECT s.*, CASE WHEN s.store = 'app_store' THEN '1' || lpad(s.i::text, 14, '0') ELSE 'GPA.1000-' || s.i END AS id
      FROM bench_sales s) t
JOIN bench_products p ON p.idx = t.product
JOIN bench_storefronts f ON f.idx = t.storefront,
     bench_clock c;

INSERT INTO entitlements.transactions (
    store, transaction_id, original_transaction_id, app_id, customer_id, environment, store_product_id, quantity,
    purchase_date, expires_date, price_milliunits, currency, applied_at, storefront, ownership_type, revocation_date)
SELECT b.store, b.transaction_id, b.original_transaction_id, :'app', b.customer, b.environment,
       CASE WHEN b.store = 'app_store' THEN 'com.bench.' || p.product_id ELSE p.product_id END, 1,
       b.starts_at, b.starts_at + b.length,
       CASE WHEN b.store = 'app_store' THEN CASE WHEN b.k = 0 THEN 0 ELSE round(p.usd * f.rate)::bigint END END,
       CASE WHEN b.store = 'app_store' THEN f.currency END,
       b.starts_at + interval '2 seconds', CASE WHEN b.store = 'app_store' THEN f.apple ELSE f.google END,
       'purchased', b.revoked_at
FROM bench_periods b
JOIN bench_products p ON p.idx = b.product
JOIN bench_storefronts f ON f.idx = b.storefront;

-- Purchases: one per one-time transaction and one per subscription, with the app version of the day it was bought.
INSERT INTO entitlements.purchases (
    store, original_transaction_id, app_id, customer_id, store_product_id, product_id, product_type, environment,
    ownership_type, purchase_date, latest_transaction_id, quantity, expires_date, credited, revoked_at,
    revocation_reason, app_version)
SELECT t.store, t.original_transaction_id, :'app', t.customer_id, t.store_product_id, p.product_id, p.kind,
       t.environment, t.ownership_type, t.purchase_date, t.transaction_id, t.quantity, NULL,
       CASE WHEN p.kind = 'consumable' THEN p.units * t.quantity END, t.revocation_date,
       CASE WHEN t.revocation_date IS NOT NULL THEN 'other' END,
       v.version
FROM entitlements.transactions t
JOIN bench_products p ON t.store_product_id IN (p.product_id, 'com.bench.' || p.product_id)
JOIN bench_versions v ON v.idx = least(5, floor(extract(epoch FROM t.purchase_date - (SELECT start FROM bench_clock)) / 86400 / 61)::int)
WHERE t.app_id = :'app' AND p.kind <> 'auto_renewable';

INSERT INTO entitlements.purchases (
    store, original_transaction_id, app_id, customer_id, store_product_id, product_id, product_type, environment,
    ownership_type, purchase_date, latest_transaction_id, quantity, expires_date, revoked_at, app_version)
SELECT DISTINCT ON (b.s) b.store, b.original_transaction_id, :'app', b.customer,
       CASE WHEN b.store = 'app_store' THEN 'com.bench.' || p.product_id ELSE p.product_id END, p.product_id,
       'auto_renewable', b.environment, 'purchased', b.started, b.transaction_id, 1, b.starts_at + b.length, NULL,
       v.version
FROM bench_periods b
JOIN bench_products p ON p.idx = b.product
JOIN bench_versions v ON v.idx = least(5, floor(extract(epoch FROM b.started - (SELECT start FROM bench_clock)) / 86400 / 61)::int)
ORDER BY b.s, b.k DESC;

-- The consumables ledger: each purchase's units, half of them spent within ten days by two in three buyers, and a
-- quarter taken back by each refund.
INSERT INTO entitlements.ledger (app_id, customer_id, product_id, delta, reason, store, transaction_id, created_at)
SELECT :'app', t.customer_id, p.product_id, p.units * t.quantity, 'purchase', t.store, t.transaction_id,
       t.applied_at
FROM entitlements.transactions t
JOIN bench_products p ON p.kind = 'consumable' AND t.store_product_id IN (p.product_id, 'com.bench.' || p.product_id)
WHERE t.app_id = :'app';
INSERT INTO entitlements.ledger (app_id, customer_id, product_id, delta, reason, created_at)
SELECT app_id, customer_id, product_id, -(delta / 2), 'consume',
       least(created_at + make_interval(days => pg_temp.h(line_id::int) % 10), (SELECT now FROM bench_clock))
FROM entitlements.ledger
WHERE app_id = :'app' AND reason = 'purchase' AND line_id % 3 <> 0;
INSERT INTO entitlements.ledger (app_id, customer_id, product_id, delta, reason, store, transaction_id, created_at)
SELECT :'app', t.customer_id, l.product_id, -(l.delta / 4), 'refund', t.store, t.transaction_id, t.revocation_date
FROM entitlements.transactions t
JOIN entitlements.ledger l ON l.transaction_id = t.transaction_id AND l.store = t.store AND l.reason = 'purchase'
WHERE t.app_id = :'app' AND t.revocation_date IS NOT NULL;

-- The subscriptions service's record of the same chains: each subscription's state now (expired, or one in a
-- hundred in a grace period and one in forty in billing retry when it ended within 16 days), and its periods.
INSERT INTO subscriptions.periods (
    store, transaction_id, original_transaction_id, app_id, product_id, store_product_id, group_key, period_type,
    starts_at, ends_at, revoked_at, revocation_reason, applied_at)
SELECT b.store, b.transaction_id, b.original_transaction_id, :'app', p.product_id,
       CASE WHEN b.store = 'app_store' THEN 'com.bench.' || p.product_id ELSE p.product_id END,
       split_part(p.product_id, '_', 1), b.period_type, b.starts_at, b.starts_at + b.length, b.revoked_at,
       CASE WHEN b.revoked_at IS NOT NULL THEN 'other' END, b.starts_at + interval '2 seconds'
FROM bench_periods b
JOIN bench_products p ON p.idx = b.product;

INSERT INTO subscriptions.subscriptions (
    store, original_transaction_id, app_id, environment, product_id, store_product_id, group_key, state, period_type,
    started_at, expires_at, access_until, will_renew, grace_expires_at, billing_retry, expiration_reason,
    renewal_observed_at, updated_at, period_started_at)
SELECT l.store, l.original_transaction_id, :'app', l.environment, p.product_id,
       CASE WHEN l.store = 'app_store' THEN 'com.bench.' || p.product_id ELSE p.product_id END,
       split_part(p.product_id, '_', 1),
       CASE WHEN l.ends > c.now THEN CASE WHEN l.period_type = 'trial' THEN 'trial' ELSE 'active' END
            WHEN l.ends > c.now - interval '16 days' AND l.s % 100 = 0 THEN 'grace_period'
            WHEN l.ends > c.now - interval '16 days' AND l.s % 40 = 0 THEN 'billing_retry'
            ELSE 'expired' END,
       l.period_type, l.started, l.ends,
       CASE WHEN l.ends <= c.now AND l.ends > c.now - interval '16 days' AND l.s % 100 = 0
            THEN l.ends + interval '16 days' ELSE l.ends END,
       l.ends > c.now,
       CASE WHEN l.ends <= c.now AND l.ends > c.now - interval '16 days' AND l.s % 100 = 0
            THEN l.ends + interval '16 days' END,
       l.ends <= c.now AND l.ends > c.now - interval '16 days' AND (l.s % 100 = 0 OR l.s % 40 = 0),
       CASE WHEN l.ends <= c.now THEN 'voluntary' END, c.now, c.now, l.starts_at
FROM (SELECT DISTINCT ON (s) *, starts_at + length AS ends FROM bench_periods ORDER BY s, k DESC) l
JOIN bench_products p ON p.idx = l.product,
     bench_clock c;

-- App trials (one in fifty of the transactions' count) and the three in ten followed by a purchase.
INSERT INTO subscriptions.trials (app_id, customer_id, product_id, group_key, device_id, started_at, ends_at, ended_reported)
SELECT :'app', md5(:'app' || 't' || i)::uuid, 'pro_monthly', 'pro', 'trial-device-' || i, t.started,
       t.started + interval '7 days', t.started + interval '7 days' < c.now
FROM generate_series(1, :n / 50) AS i, bench_clock c,
     LATERAL (SELECT c.start + make_interval(days => pg_temp.h(i * 5) % 365, secs => pg_temp.h(i) % 86400) AS started) t
WHERE t.started < c.now;
INSERT INTO subscriptions.trial_conversions (app_id, customer_id, product_id, transaction_id, converted_at)
SELECT app_id, customer_id, 'pro_monthly', 'conversion-' || customer_id, least(ends_at, (SELECT now FROM bench_clock))
FROM subscriptions.trials
WHERE app_id = :'app' AND pg_temp.h(hashtext(device_id)) % 10 < 3;

-- Content downloads (three in ten of the transactions' count): sessions of a device fetching the six files of a
-- pack version, three packs, a new version each quarter, one of a customer's two devices; a file in twelve
-- interrupted halfway. A customer who comes back for the same version downloads it again.
INSERT INTO content.downloads (
    app_id, app_user_id, device_id, product_id, version, path, range_start, range_end, file_size, bytes_sent,
    completed, request_id, started_at, finished_at)
SELECT :'app', 'user-' || v.customer, 'device-' || v.customer || '-' || v.device, 'level_pack_' || v.pack,
       (1 + floor(extract(epoch FROM v.started - c.start) / 86400 / 92))::int::text, 'file-' || f || '.bin', 0,
       999999 + f, 1000000 + f, CASE WHEN (s + f) % 12 = 0 THEN 500000 ELSE 1000000 + f END, (s + f) % 12 <> 0,
       NULL, v.started + make_interval(secs => f), v.started + make_interval(secs => f + 5)
FROM generate_series(1, :n * 3 / 10 / 6) AS s, bench_clock c,
     LATERAL (SELECT pg_temp.h(s) % 40000 AS customer, pg_temp.h(s * 11) % 2 AS device, s % 3 AS pack,
                     least(c.start + make_interval(days => pg_temp.h(s * 3) % 365, secs => pg_temp.h(s * 7) % 86400),
                           c.now - interval '1 minute') AS started) v,
     generate_series(0, 5) AS f;

-- The subscriptions' durations in the catalog (MRR and churn normalize prices by them), as an import leaves them.
INSERT INTO catalog.products (app_id, product_id, type, review_state, cleared_for_sale, free, document)
SELECT :'app', product_id, kind, 'approved', true, false,
       jsonb_build_object('product_id', product_id, 'type', kind,
                          'duration', CASE WHEN product_id LIKE '%yearly' THEN 'P1Y' ELSE 'P1M' END)
FROM bench_products WHERE kind = 'auto_renewable';

-- Exchange rates against the dollar for every working day of the year and the week before it (ECB publishes on
-- working days: a weekend converts at Friday's rate), within half a percent of the storefronts' rates, so the charts
-- can report in one currency.
INSERT INTO entitlements.exchange_rates (app_id, currency, day, base, rate, source)
SELECT :'app', f.currency, d::date, 'USD',
       round(f.rate * (1 + (pg_temp.h(extract(doy FROM d)::int) % 100 - 50) / 10000.0), 6), 'csv'
FROM (SELECT DISTINCT currency, rate FROM bench_storefronts WHERE currency <> 'USD') f, bench_clock c,
     generate_series((c.start AT TIME ZONE 'UTC')::date - 7, (c.now AT TIME ZONE 'UTC')::date, interval '1 day') d
WHERE extract(isodow FROM d) < 6;

RESET session_replication_role;
VACUUM ANALYZE entitlements.customers, entitlements.transactions, entitlements.purchases, entitlements.ledger,
    entitlements.exchange_rates, catalog.products,
    subscriptions.trial_conversions, subscriptions.subscriptions, subscriptions.periods, subscriptions.trials,
    content.downloads;
