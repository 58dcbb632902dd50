import ShopkeeperDatabase

extension SubscriptionsMigrations {
    /// A subscription's state at a moment in one SQL function (`subscriptions.effective_state`, the twin of
    /// `SubscriptionTimeline`, held equal to it by `EffectiveStateTests`), used by `subscriptions_v1`, entitlements'
    /// customer info and the subscriptions report; and the app trials' conversions, recorded here.
    static let effectiveState: [Migration] = [
        Migration(
            "0007_effective_state",
            sql: """
                -- The start of the period that governs (the one that started last): billing trouble observed before it
                -- belongs to an earlier period (SubscriptionTimeline). Rows from before this release take it from their
                -- periods.
                ALTER TABLE subscriptions.subscriptions ADD COLUMN period_started_at timestamptz;
                UPDATE subscriptions.subscriptions s SET period_started_at = p.starts_at
                FROM (SELECT DISTINCT ON (store, original_transaction_id) store, original_transaction_id, starts_at
                      FROM subscriptions.periods
                      ORDER BY store, original_transaction_id, starts_at DESC, transaction_id COLLATE "C" DESC) p
                WHERE s.store = p.store AND s.original_transaction_id = p.original_transaction_id;

                -- A subscription's state at `at_time`, from the governing period and the newest renewal facts: the one
                -- place of the rule in SQL, written as SubscriptionTimeline.status(of:at:) decides it (a table test
                -- holds the two equal). One CASE expression, IMMUTABLE, no SET: PostgreSQL inlines it into the
                -- statement that calls it. The time is a parameter (callers pass now()).
                --   period_type, period_starts_at, period_ends_at: the governing period;
                --   ended_at: when the store's status said the period was over (it ends then if that is earlier);
                --   revoked_at, revocation: its refund or revocation ('revoked' for Family Sharing, anything else a
                --     refund), NULL when none or reversed;
                --   observed_at, grace_expires_at, billing_retry, paused: the newest renewal facts, which count only
                --     when observed at or after the period's start.
                CREATE FUNCTION subscriptions.effective_state(
                    period_type text, period_starts_at timestamptz, period_ends_at timestamptz, ended_at timestamptz,
                    revoked_at timestamptz, revocation text, observed_at timestamptz, grace_expires_at timestamptz,
                    billing_retry boolean, paused boolean, at_time timestamptz) RETURNS text
                LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                    SELECT CASE
                        WHEN revoked_at IS NOT NULL
                            THEN CASE WHEN revocation = 'revoked' THEN 'revoked' ELSE 'refunded' END
                        WHEN at_time < least(period_ends_at,
                                             CASE WHEN ended_at >= period_starts_at THEN ended_at END)
                            THEN CASE WHEN period_type = 'trial' THEN 'trial' ELSE 'active' END
                        WHEN observed_at >= period_starts_at AND paused THEN 'paused'
                        WHEN observed_at >= period_starts_at AND at_time < grace_expires_at
                             AND grace_expires_at > least(period_ends_at,
                                                          CASE WHEN ended_at >= period_starts_at THEN ended_at END)
                            THEN 'grace_period'
                        WHEN observed_at >= period_starts_at AND billing_retry THEN 'billing_retry'
                        ELSE 'expired'
                    END
                $$;

                -- Whether a state grants the subscription's entitlements (SubscriptionState.grantsAccess).
                CREATE FUNCTION subscriptions.grants_access(state text) RETURNS boolean
                LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                    SELECT state IN ('trial', 'active', 'grace_period')
                $$;

                -- The published view's state is the state now by the function, no longer the state stored at the last
                -- write or sweep moved on by a rule of its own (same columns: readers are unaffected). `state` at the
                -- row is the revocation's kind when `revoked_at` is set.
                CREATE OR REPLACE VIEW subscriptions.subscriptions_v1 AS
                SELECT s.app_id, s.store, s.original_transaction_id, s.environment, s.product_id, s.store_product_id,
                       s.group_key, s.period_type, s.started_at, s.expires_at, s.access_until, s.will_renew,
                       s.renews_into_store_product_id, s.grace_expires_at, s.expiration_reason,
                       CASE WHEN s.state = 'refunded' THEN s.revoked_at END AS refunded_at,
                       CASE WHEN s.state = 'revoked' THEN s.revoked_at END AS revoked_at,
                       subscriptions.grants_access(subscriptions.effective_state(
                           s.period_type, s.period_started_at, s.expires_at, s.store_ended_at, s.revoked_at, s.state,
                           s.renewal_observed_at, s.grace_expires_at, s.billing_retry, s.paused, now())) AS active,
                       subscriptions.effective_state(
                           s.period_type, s.period_started_at, s.expires_at, s.store_ended_at, s.revoked_at, s.state,
                           s.renewal_observed_at, s.grace_expires_at, s.billing_retry, s.paused, now()) AS state,
                       s.revision
                FROM subscriptions.subscriptions s;

                -- Subscriptions that may be in a grace period or in billing retry now (the report's candidates; the
                -- function decides): a grace period can begin while the stored state is still `active`.
                CREATE INDEX subscriptions_maybe_in_trouble ON subscriptions.subscriptions (app_id)
                    WHERE state IN ('grace_period', 'billing_retry') OR billing_retry OR grace_expires_at > expires_at;
                DROP INDEX subscriptions.subscriptions_in_trouble;
                """
        ),
        Migration(
            "0008_trial_conversions",
            sql: """
                -- The app's own trials (`trials`) that a purchase converted: the customer's first purchase of a
                -- subscription in the trial's group, made after the trial started, once per customer. Recorded here,
                -- where the trials are, so the report reads only this schema; entitlements records them with the
                -- purchase through subscriptions.record_trial_conversion_v1. The conversions entitlements recorded
                -- before this release (`entitlements.trial_conversions`) are copied once.
                CREATE TABLE subscriptions.trial_conversions (
                    app_id text NOT NULL,
                    customer_id uuid NOT NULL,
                    product_id text NOT NULL,
                    transaction_id text NOT NULL,
                    converted_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, customer_id)
                );
                CREATE INDEX trial_conversions_by_day ON subscriptions.trial_conversions (app_id, converted_at);
                DO $$
                BEGIN
                    IF to_regclass('entitlements.trial_conversions') IS NOT NULL THEN
                        EXECUTE 'INSERT INTO subscriptions.trial_conversions '
                            '(app_id, customer_id, product_id, transaction_id, converted_at) '
                            'SELECT app_id, customer_id, product_id, transaction_id, converted_at '
                            'FROM entitlements.trial_conversions ON CONFLICT (app_id, customer_id) DO NOTHING';
                    END IF;
                END
                $$;

                -- Published for entitlements, which calls it in the transaction that records a new subscription
                -- purchase (and writes `trial_converted` when it answers true): records the conversion when the
                -- purchase of `purchased_product` is one. The owner defines the write (as entitlements.customers_seen_v1).
                -- PL/pgSQL: the catalog's view it reads may be created after this migration on a new database.
                CREATE FUNCTION subscriptions.record_trial_conversion_v1(
                    for_app text, for_customer uuid, purchased_product text, purchase_transaction text,
                    purchased_at timestamptz)
                RETURNS boolean
                LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO subscriptions.trial_conversions (app_id, customer_id, product_id, transaction_id)
                    SELECT for_app, for_customer, purchased_product, purchase_transaction
                    FROM subscriptions.trials t
                    JOIN catalog.products_v1 p ON p.app_id = t.app_id AND p.product_id = purchased_product
                    WHERE t.app_id = for_app AND t.customer_id = for_customer AND t.started_at <= purchased_at
                      AND coalesce(p.product_group, p.product_id) = t.group_key
                    ON CONFLICT (app_id, customer_id) DO NOTHING;
                    RETURN FOUND;
                END;
                $$;
                """
        ),
    ]
}
