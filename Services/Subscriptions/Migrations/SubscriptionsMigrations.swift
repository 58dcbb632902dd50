import ShopkeeperDatabase

/// The subscriptions service's schema changes, oldest first. Forward only: never edit a released one, add a new one.
enum SubscriptionsMigrations {
    static let runner = MigrationRunner(schema: "subscriptions", migrations: all)

    /// Every migration, in order: the first ones, then those of each later change.
    static let all: [Migration] = firstRelease + effectiveState + checks + publishedPeriodEnds

    /// Migrations 0001 to 0006.
    static let firstRelease: [Migration] = [
        Migration(
            "0001_subscriptions_periods_trials_changes",
            sql: """
                -- One auto-renewable subscription at a store: the chain of transactions sharing an original
                -- transaction id. The stored state is the state at `updated_at`; `access_until` says exactly when the
                -- entitlements end, and the expiry sweep moves `state` on when that passes without news.
                CREATE TABLE subscriptions.subscriptions (
                    store text NOT NULL,
                    original_transaction_id text NOT NULL,
                    app_id text NOT NULL,
                    environment text NOT NULL,
                    product_id text NOT NULL,
                    store_product_id text NOT NULL,
                    group_key text NOT NULL,
                    state text NOT NULL CHECK (state IN ('trial', 'active', 'grace_period', 'billing_retry',
                        'paused', 'expired', 'revoked', 'refunded')),
                    period_type text NOT NULL CHECK (period_type IN ('trial', 'intro', 'normal')),
                    started_at timestamptz NOT NULL,
                    expires_at timestamptz,
                    access_until timestamptz,
                    will_renew boolean,
                    renews_into_store_product_id text,
                    grace_expires_at timestamptz,
                    billing_retry boolean NOT NULL DEFAULT false,
                    paused boolean NOT NULL DEFAULT false,
                    expiration_reason text,
                    revoked_at timestamptz,
                    renewal_observed_at timestamptz,
                    -- When the store's status said the current period was over.
                    store_ended_at timestamptz,
                    -- The next moment the state changes by itself (a period or a grace period ends).
                    next_change_at timestamptz,
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (store, original_transaction_id)
                );
                CREATE INDEX subscriptions_by_app ON subscriptions.subscriptions (app_id, group_key);
                -- The expiry sweep's queue.
                CREATE INDEX subscriptions_due ON subscriptions.subscriptions (next_change_at)
                    WHERE next_change_at IS NOT NULL;

                -- Each transaction of a subscription once: the period it paid for (or its trial or intro offer).
                CREATE TABLE subscriptions.periods (
                    store text NOT NULL,
                    transaction_id text NOT NULL,
                    original_transaction_id text NOT NULL,
                    app_id text NOT NULL,
                    product_id text NOT NULL,
                    store_product_id text NOT NULL,
                    group_key text NOT NULL,
                    period_type text NOT NULL CHECK (period_type IN ('trial', 'intro', 'normal')),
                    starts_at timestamptz NOT NULL,
                    ends_at timestamptz NOT NULL,
                    revoked_at timestamptz,
                    revocation_reason text,
                    applied_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (store, transaction_id),
                    FOREIGN KEY (store, original_transaction_id)
                        REFERENCES subscriptions.subscriptions (store, original_transaction_id)
                );
                CREATE INDEX periods_by_subscription ON subscriptions.periods (store, original_transaction_id);

                -- The app's own free trial: once per customer (entitlements' customer id) and once per device.
                CREATE TABLE subscriptions.trials (
                    trial_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                    app_id text NOT NULL,
                    customer_id uuid NOT NULL,
                    product_id text NOT NULL,
                    group_key text NOT NULL,
                    device_id text NOT NULL,
                    started_at timestamptz NOT NULL DEFAULT now(),
                    ends_at timestamptz NOT NULL,
                    ended_reported boolean NOT NULL DEFAULT false,
                    UNIQUE (app_id, customer_id)
                );
                CREATE INDEX trials_due ON subscriptions.trials (ends_at) WHERE NOT ended_reported;
                -- Every device that asked for a trial, and the trial it belongs to: a device never starts another.
                CREATE TABLE subscriptions.trial_devices (
                    app_id text NOT NULL,
                    device_id text NOT NULL,
                    trial_id uuid NOT NULL REFERENCES subscriptions.trials (trial_id),
                    first_seen timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, device_id)
                );

                -- Outbox: every change of a subscription or trial. The entitlements service relays these to its
                -- events (and webhooks) with the customer they belong to, in (tx, sequence) order: a reader that only
                -- takes rows whose transaction is older than every running one (pg_snapshot_xmin) never skips a row
                -- committed late.
                CREATE TABLE subscriptions.changes (
                    sequence bigserial PRIMARY KEY,
                    tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
                    app_id text NOT NULL,
                    type text NOT NULL,
                    store text,
                    original_transaction_id text,
                    customer_id uuid,
                    environment text,
                    payload jsonb NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now()
                );
                CREATE INDEX changes_in_order ON subscriptions.changes (tx, sequence);

                -- Published for entitlements (customer info): each subscription's state now. The stored state
                -- is at most one sweep old; `active` is exact.
                CREATE VIEW subscriptions.subscriptions_v1 AS
                SELECT s.app_id, s.store, s.original_transaction_id, s.environment, s.product_id, s.store_product_id,
                       s.group_key, s.period_type, s.started_at, s.expires_at, s.access_until, s.will_renew,
                       s.renews_into_store_product_id, s.grace_expires_at, s.expiration_reason,
                       CASE WHEN s.state = 'refunded' THEN s.revoked_at END AS refunded_at,
                       CASE WHEN s.state = 'revoked' THEN s.revoked_at END AS revoked_at,
                       s.state IN ('trial', 'active', 'grace_period') AND s.access_until > now() AS active,
                       CASE WHEN s.state IN ('trial', 'active', 'grace_period') AND s.access_until <= now()
                            THEN CASE WHEN s.billing_retry THEN 'billing_retry' ELSE 'expired' END
                            ELSE s.state END AS state
                FROM subscriptions.subscriptions s;

                -- Published for entitlements: the app's own trials.
                CREATE VIEW subscriptions.trials_v1 AS
                SELECT app_id, customer_id, product_id, group_key, started_at, ends_at, ends_at > now() AS active
                FROM subscriptions.trials;

                -- Published for entitlements: the change outbox.
                CREATE VIEW subscriptions.changes_v1 AS
                SELECT sequence, tx, app_id, type, store, original_transaction_id, customer_id, environment, payload,
                       created_at
                FROM subscriptions.changes;

                CREATE FUNCTION subscriptions.notify_change() RETURNS trigger
                LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_notify('subscriptions_changed', NEW.app_id);
                    RETURN NULL;
                END;
                $$;
                CREATE TRIGGER changes_added AFTER INSERT ON subscriptions.changes
                    FOR EACH ROW EXECUTE FUNCTION subscriptions.notify_change();
                """
        ),
        Migration(
            "0002_period_revocation_reversals",
            sql: """
                -- When the store reversed the period's refund or revocation (Apple's REFUND_REVERSED): the period is
                -- in force again, and a revocation dated at or before it is never recorded again.
                ALTER TABLE subscriptions.periods ADD COLUMN revocation_reversed_at timestamptz;
                """
        ),
        Migration(
            "0003_stale_subscriptions",
            sql: """
                -- Published for the verifier's reconciliation job: subscriptions whose period ended in the last 30
                -- days while the store has not said that this period is over for good (no status "expired" observed
                -- at or after its end), or that are in billing retry (the store may still recover them). A missed
                -- renewal notification leaves a paying customer here; the verifier asks the store about each.
                CREATE VIEW subscriptions.stale_v1 AS
                SELECT app_id, store, original_transaction_id, environment, expires_at
                FROM subscriptions.subscriptions
                WHERE state NOT IN ('revoked', 'refunded')
                  AND expires_at < now() AND expires_at > now() - interval '30 days'
                  AND (store_ended_at IS NULL OR store_ended_at < expires_at OR billing_retry);
                CREATE INDEX subscriptions_by_expiry ON subscriptions.subscriptions (expires_at)
                    WHERE state NOT IN ('revoked', 'refunded');
                """
        ),
        Migration(
            "0004_published_periods",
            sql: """
                -- Published for entitlements (a customer's history): every period of every subscription, each a
                -- transaction with its kind (trial, intro offer, paid), start, end and revocation; together, a
                -- subscription's timeline. A reversed revocation is no revocation (`revoked_at` is cleared then).
                CREATE VIEW subscriptions.periods_v1 AS
                SELECT app_id, store, original_transaction_id, transaction_id, product_id, store_product_id,
                       period_type, starts_at, ends_at, revoked_at, revocation_reason, revocation_reversed_at
                FROM subscriptions.periods;
                """
        ),
        Migration(
            "0005_reports",
            sql: """
                -- The subscriptions report (GET /v1/admin/reports/subscriptions) is SQL over the periods. `changed_tx`:
                -- the transaction that last changed the row (NULL: before this release); the report's daily summary is
                -- refreshed from the periods changed since it was last built (DailyRollup).
                ALTER TABLE subscriptions.periods ADD COLUMN changed_tx xid8;
                ALTER TABLE subscriptions.periods ALTER COLUMN changed_tx SET DEFAULT pg_current_xact_id();
                CREATE FUNCTION subscriptions.touch_changed_tx() RETURNS trigger
                LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW IS DISTINCT FROM OLD THEN
                        NEW.changed_tx := pg_current_xact_id();
                    END IF;
                    RETURN NEW;
                END;
                $$;
                CREATE TRIGGER periods_changed_tx BEFORE UPDATE ON subscriptions.periods
                    FOR EACH ROW EXECUTE FUNCTION subscriptions.touch_changed_tx();

                -- Reports count in UTC days.
                CREATE FUNCTION subscriptions.utc_day(t timestamptz) RETURNS date
                LANGUAGE sql IMMUTABLE AS $$ SELECT (t AT TIME ZONE 'UTC')::date $$;
                CREATE FUNCTION subscriptions.utc_start(d date) RETURNS timestamptz
                LANGUAGE sql IMMUTABLE AS $$ SELECT d::timestamp AT TIME ZONE 'UTC' $$;
                -- When a period's access ended: its end, or its refund or revocation when earlier and not reversed. A
                -- period that ends before it starts (revoked at once) never counts.
                CREATE FUNCTION subscriptions.period_end(ends_at timestamptz, revoked_at timestamptz,
                                                         reversed_at timestamptz) RETURNS timestamptz
                LANGUAGE sql IMMUTABLE AS $$
                    SELECT CASE WHEN revoked_at IS NOT NULL AND (reversed_at IS NULL OR reversed_at < revoked_at)
                                THEN least(ends_at, revoked_at) ELSE ends_at END
                $$;

                -- A day's period starts and ends; a subscription's periods in order; what changed since a summary.
                CREATE INDEX periods_by_app_start ON subscriptions.periods (app_id, starts_at);
                CREATE INDEX periods_by_app_end ON subscriptions.periods (
                    app_id, subscriptions.period_end(ends_at, revoked_at, revocation_reversed_at));
                CREATE INDEX periods_changed ON subscriptions.periods (app_id, changed_tx);
                CREATE INDEX periods_in_order ON subscriptions.periods (store, original_transaction_id, starts_at);
                CREATE INDEX trials_by_app_start ON subscriptions.trials (app_id, started_at);
                -- Subscriptions that may be in a grace period or in billing retry now.
                CREATE INDEX subscriptions_in_trouble ON subscriptions.subscriptions (app_id)
                    WHERE state IN ('grace_period', 'billing_retry') OR billing_retry;

                -- Each app's daily summaries: closed UTC days only (today is worked out from the periods at each read),
                -- every period changed by a transaction below `tx` included, every day through `built_through` built.
                CREATE TABLE subscriptions.report_rollups (
                    app_id text NOT NULL,
                    rollup text NOT NULL,
                    tx xid8 NOT NULL,
                    built_through date NOT NULL,
                    built_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, rollup)
                );
                -- Per day, environment and product: periods that started and ended (trial or paid), and what the
                -- starts and ends were to their subscription.
                CREATE TABLE subscriptions.report_days (
                    app_id text NOT NULL,
                    day date NOT NULL,
                    environment text NOT NULL,
                    product_id text NOT NULL,
                    trial_starts bigint NOT NULL,
                    trial_ends bigint NOT NULL,
                    paid_starts bigint NOT NULL,
                    paid_ends bigint NOT NULL,
                    new_subscriptions bigint NOT NULL,
                    trials_converted bigint NOT NULL,
                    renewals bigint NOT NULL,
                    reactivations bigint NOT NULL,
                    churned bigint NOT NULL
                );
                CREATE INDEX report_days_by_day ON subscriptions.report_days (app_id, day);
                """
        ),
        Migration(
            "0006_revisions",
            sql: """
                -- Published for readers that keep what they derive from subscriptions (entitlements stores each
                -- customer's rendered info): `revision`, from a sequence, new at every insert and every update that
                -- changes the row. A reader keeps the sum of the revisions of the rows it derived from; a row that
                -- changed since makes the sum larger, whatever the order the writers committed in. Rows from before
                -- this release have 0 until their next change.
                CREATE SEQUENCE subscriptions.revisions;
                ALTER TABLE subscriptions.subscriptions ADD COLUMN revision bigint NOT NULL DEFAULT 0;
                ALTER TABLE subscriptions.subscriptions ALTER COLUMN revision
                    SET DEFAULT nextval('subscriptions.revisions');
                CREATE FUNCTION subscriptions.next_revision() RETURNS trigger
                LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW IS DISTINCT FROM OLD THEN
                        NEW.revision := nextval('subscriptions.revisions');
                    END IF;
                    RETURN NEW;
                END;
                $$;
                CREATE TRIGGER subscriptions_revision BEFORE UPDATE ON subscriptions.subscriptions
                    FOR EACH ROW EXECUTE FUNCTION subscriptions.next_revision();

                -- The published view gains `revision` (a column added at the end: readers are unaffected).
                CREATE OR REPLACE VIEW subscriptions.subscriptions_v1 AS
                SELECT s.app_id, s.store, s.original_transaction_id, s.environment, s.product_id, s.store_product_id,
                       s.group_key, s.period_type, s.started_at, s.expires_at, s.access_until, s.will_renew,
                       s.renews_into_store_product_id, s.grace_expires_at, s.expiration_reason,
                       CASE WHEN s.state = 'refunded' THEN s.revoked_at END AS refunded_at,
                       CASE WHEN s.state = 'revoked' THEN s.revoked_at END AS revoked_at,
                       s.state IN ('trial', 'active', 'grace_period') AND s.access_until > now() AS active,
                       CASE WHEN s.state IN ('trial', 'active', 'grace_period') AND s.access_until <= now()
                            THEN CASE WHEN s.billing_retry THEN 'billing_retry' ELSE 'expired' END
                            ELSE s.state END AS state,
                       s.revision
                FROM subscriptions.subscriptions s;
                """
        ),
    ]
}
