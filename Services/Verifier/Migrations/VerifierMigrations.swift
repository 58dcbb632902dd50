import ShopkeeperDatabase

/// The verifier's schema changes, oldest first. Forward only: never edit a released one, add a new one.
enum VerifierMigrations {
    static let runner = MigrationRunner(schema: "verifier", migrations: all)

    static let all: [Migration] = [
        Migration(
            "0001_credentials_transactions_attempts",
            sql: """
                -- One row per app and store. `public_view` is what admins may read back; `sealed` is the whole
                -- credential (secrets included) under AES-GCM with a key derived from SHOPKEEPER_MASTER_KEY.
                CREATE TABLE verifier.store_credentials (
                    app_id text NOT NULL,
                    store text NOT NULL CHECK (store IN ('apple', 'google')),
                    public_view jsonb NOT NULL,
                    sealed bytea NOT NULL,
                    key_id text NOT NULL,
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, store)
                );

                -- Verified store facts, once per (store, transaction id): the primary key, not a check, decides.
                CREATE TABLE verifier.transactions (
                    store text NOT NULL,
                    transaction_id text NOT NULL,
                    app_id text NOT NULL,
                    environment text NOT NULL,
                    original_transaction_id text NOT NULL,
                    store_product_id text NOT NULL,
                    type text,
                    quantity integer NOT NULL,
                    purchase_date timestamptz NOT NULL,
                    expires_date timestamptz,
                    revocation_date timestamptz,
                    revocation_reason text,
                    fact jsonb NOT NULL,
                    proof_kind text NOT NULL,
                    raw_proof text NOT NULL,
                    app_user_id text,
                    device_id text,
                    apply_state text NOT NULL DEFAULT 'pending' CHECK (apply_state IN ('pending', 'applied')),
                    first_verified_at timestamptz NOT NULL DEFAULT now(),
                    last_verified_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (store, transaction_id)
                );
                CREATE INDEX transactions_by_original ON verifier.transactions (app_id, store, original_transaction_id);
                CREATE INDEX transactions_pending ON verifier.transactions (first_verified_at)
                    WHERE apply_state = 'pending';

                -- Every verification attempt and its outcome, for support and audit.
                CREATE TABLE verifier.verification_attempts (
                    id bigserial PRIMARY KEY,
                    app_id text NOT NULL,
                    attempted_at timestamptz NOT NULL DEFAULT now(),
                    proof_kind text NOT NULL,
                    outcome text NOT NULL CHECK (outcome IN ('verified', 'invalid', 'retryable')),
                    code text,
                    transaction_ids text[] NOT NULL DEFAULT '{}',
                    app_user_id text,
                    request_id text,
                    duration_ms integer NOT NULL
                );
                CREATE INDEX verification_attempts_by_app ON verifier.verification_attempts (app_id, attempted_at);

                -- Published for other services (read only).
                CREATE VIEW verifier.transactions_v1 AS
                SELECT app_id, store, environment, transaction_id, original_transaction_id, store_product_id, type,
                       quantity, purchase_date, expires_date, revocation_date, revocation_reason, fact,
                       app_user_id, apply_state, first_verified_at
                FROM verifier.transactions;
                """
        ),
        Migration(
            "0002_apply_state",
            sql: """
                -- `refused`: the entitlements service gave a verdict (device limit, another owner...): not retried in
                -- the background; the next presentation applies again. `next_apply_at` leases a pending fact to one
                -- background worker at a time. `apply_as`: `presenter` applies for the customer who presented the
                -- proof; `owner` (news such as a refund) only updates the purchase's current owner.
                ALTER TABLE verifier.transactions DROP CONSTRAINT transactions_apply_state_check;
                ALTER TABLE verifier.transactions ADD CONSTRAINT transactions_apply_state_check
                    CHECK (apply_state IN ('pending', 'applied', 'refused'));
                ALTER TABLE verifier.transactions
                    ADD COLUMN apply_attempts integer NOT NULL DEFAULT 0,
                    ADD COLUMN next_apply_at timestamptz NOT NULL DEFAULT now(),
                    ADD COLUMN apply_error text,
                    ADD COLUMN applied_at timestamptz,
                    ADD COLUMN apply_as text NOT NULL DEFAULT 'presenter' CHECK (apply_as IN ('presenter', 'owner'));
                DROP INDEX verifier.transactions_pending;
                CREATE INDEX transactions_pending ON verifier.transactions (next_apply_at) WHERE apply_state = 'pending';
                """
        ),
        Migration(
            "0003_notifications",
            sql: """
                -- Store notifications, recorded once per (store, notification id) before they are answered, then
                -- processed in the background: `pending` until processed, leased by `next_attempt_at`; `failed` when
                -- processing can never succeed (the reason in `last_error`).
                CREATE TABLE verifier.notifications (
                    store text NOT NULL,
                    notification_id text NOT NULL,
                    app_id text NOT NULL,
                    type text NOT NULL,
                    subtype text,
                    environment text,
                    signed_at timestamptz,
                    payload text NOT NULL,
                    state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'processed', 'failed')),
                    attempts integer NOT NULL DEFAULT 0,
                    next_attempt_at timestamptz NOT NULL DEFAULT now(),
                    last_error text,
                    received_at timestamptz NOT NULL DEFAULT now(),
                    processed_at timestamptz,
                    PRIMARY KEY (store, notification_id)
                );
                CREATE INDEX notifications_due ON verifier.notifications (next_attempt_at) WHERE state = 'pending';
                CREATE INDEX notifications_by_app ON verifier.notifications (app_id, received_at);
                """
        ),
        Migration(
            "0004_notification_answers",
            sql: """
                -- What the verifier answered the store for a notification that asks for an answer
                -- (CONSUMPTION_REQUEST: the consumption information sent, or why none was).
                ALTER TABLE verifier.notifications ADD COLUMN answer text;
                """
        ),
        Migration(
            "0005_revocation_reversals",
            sql: """
                -- When the store reversed the transaction's refund or revocation (Apple's REFUND_REVERSED): a revocation
                -- dated at or before it is the reversed one and is not recorded again.
                ALTER TABLE verifier.transactions ADD COLUMN revocation_reversed_at timestamptz;
                """
        ),
        Migration(
            "0006_reconciliations",
            sql: """
                -- The reconciliation job's memory: per subscription, the period end that looked stale
                -- (subscriptions.stale_v1), how often the store was asked about it, and when to ask next. A claim
                -- pushes next_check_at past a lease, so one replica asks at a time and a crashed one's claim
                -- returns; a new period end starts the count again.
                CREATE TABLE verifier.reconciliations (
                    store text NOT NULL,
                    original_transaction_id text NOT NULL,
                    app_id text NOT NULL,
                    environment text NOT NULL,
                    expires_at timestamptz NOT NULL,
                    attempts integer NOT NULL DEFAULT 1,
                    next_check_at timestamptz NOT NULL,
                    checked_at timestamptz,
                    outcome text,
                    PRIMARY KEY (store, original_transaction_id)
                );
                CREATE INDEX reconciliations_by_app ON verifier.reconciliations (app_id, checked_at);
                """
        ),
        Migration(
            "0007_signed_data_compression",
            sql: """
                -- Signed data (a notification's signedPayload, about 14 KB; a transaction's signed proof) is base64:
                -- PostgreSQL's default compression (pglz) spends about 0.25 ms per notification failing to shrink
                -- it. lz4 shrinks it by a quarter at a fraction of the cost; a server built without lz4 stores it
                -- uncompressed instead. Applies to values written from now on.
                DO $$
                BEGIN
                    ALTER TABLE verifier.notifications ALTER COLUMN payload SET COMPRESSION lz4;
                    ALTER TABLE verifier.transactions ALTER COLUMN raw_proof SET COMPRESSION lz4;
                EXCEPTION WHEN feature_not_supported THEN
                    ALTER TABLE verifier.notifications ALTER COLUMN payload SET STORAGE EXTERNAL;
                    ALTER TABLE verifier.transactions ALTER COLUMN raw_proof SET STORAGE EXTERNAL;
                END
                $$;
                """
        ),
        Migration(
            "0008_refused_facts",
            sql: """
                -- Facts refused for one presenter that another presenter's apply granted are marked applied by the
                -- background sweep, so the verifier's state agrees with entitlements: it looks at these.
                CREATE INDEX transactions_refused ON verifier.transactions (store, transaction_id)
                    WHERE apply_state = 'refused';
                """
        ),
        Migration(
            "0009_app_store_support",
            sql: """
                -- The App Store notification recovery job's cursor: per app and Apple environment, Apple's history is
                -- read completely up to checked_until (the last seen notification time). A claim pushes next_run_at
                -- past a lease, so one replica reads an app at a time and a crashed one's claim returns.
                CREATE TABLE verifier.notification_recovery (
                    app_id text NOT NULL,
                    environment text NOT NULL CHECK (environment IN ('production', 'sandbox')),
                    checked_until timestamptz,
                    last_recovered_at timestamptz,
                    recovered bigint NOT NULL DEFAULT 0,
                    next_run_at timestamptz NOT NULL DEFAULT now(),
                    last_run_at timestamptz,
                    last_error text,
                    PRIMARY KEY (app_id, environment)
                );
                CREATE INDEX notification_recovery_due ON verifier.notification_recovery (next_run_at);

                -- Renewal-date extensions asked of Apple, once per app and Idempotency-Key: the key's request
                -- identifier, Apple's expiry before the first attempt, and the final outcome, answered again to a retry.
                CREATE TABLE verifier.renewal_extensions (
                    app_id text NOT NULL,
                    idempotency_key text NOT NULL,
                    original_transaction_id text NOT NULL,
                    environment text NOT NULL,
                    extend_by_days integer NOT NULL CHECK (extend_by_days BETWEEN 1 AND 90),
                    reason_code integer NOT NULL CHECK (reason_code BETWEEN 0 AND 3),
                    request_identifier uuid NOT NULL UNIQUE,
                    state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'succeeded', 'refused')),
                    expires_before timestamptz,
                    effective_date timestamptz,
                    web_order_line_item_id text,
                    error_code text,
                    apple_error_code bigint,
                    error_detail text,
                    leased_until timestamptz NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    finished_at timestamptz,
                    PRIMARY KEY (app_id, idempotency_key)
                );
                CREATE INDEX renewal_extensions_by_subscription
                    ON verifier.renewal_extensions (app_id, original_transaction_id, created_at);
                """
        ),
        Migration(
            "0010_google_consumptions_and_voided_cursors",
            sql: """
                -- Play one-time purchases of apps with `consume_consumables` on, queued with their fact (same
                -- statement) to be consumed at Google once entitlements has granted them as consumables. `pending`
                -- until then, leased by `next_attempt_at` (backoff doubling per attempt, capped at an hour);
                -- `consumed` once Google accepted it (or reports it consumed); `skipped` when it must never be (not a
                -- consumable, refunded, the app turned the setting off), the reason in `last_error`.
                CREATE TABLE verifier.google_consumptions (
                    transaction_id text PRIMARY KEY,
                    app_id text NOT NULL,
                    store_product_id text NOT NULL,
                    purchase_token text NOT NULL,
                    state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'consumed', 'skipped')),
                    attempts integer NOT NULL DEFAULT 0,
                    next_attempt_at timestamptz NOT NULL DEFAULT now(),
                    last_error text,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    consumed_at timestamptz
                );
                CREATE INDEX google_consumptions_due ON verifier.google_consumptions (next_attempt_at)
                    WHERE state = 'pending';

                -- How far the voided-purchases poller has read each app's Play voided purchases: the next window
                -- starts at `next_start_ms` (UNIX ms; NULL: 30 days back, as far as Google keeps them); a window
                -- being read has its end in `window_end_ms` and its next page in `page_token`. A claim pushes
                -- `next_poll_at` past a lease and takes a new `lease_id`: one replica polls an app at a time, and a
                -- replica whose lease ran out can no longer move the cursor.
                CREATE TABLE verifier.google_voided_cursors (
                    app_id text PRIMARY KEY,
                    next_start_ms bigint,
                    window_end_ms bigint,
                    page_token text,
                    last_voided_ms bigint,
                    found bigint NOT NULL DEFAULT 0,
                    lease_id uuid,
                    next_poll_at timestamptz NOT NULL DEFAULT now(),
                    polled_at timestamptz,
                    last_error text
                );
                """
        ),
        Migration(
            "0011_recovery_claims_and_refund_lookups",
            sql: """
                -- Until when a recovery run holds its (app, environment) pair: set by a claim, cleared when the run
                -- ends. A replica that starts makes the pairs nobody holds due at once (unless one ran moments ago),
                -- and leaves a held pair to its holder.
                ALTER TABLE verifier.notification_recovery ADD COLUMN claimed_until timestamptz;

                -- Get Refund History asked with App Store purchases bought without an appAccountToken, whose
                -- refunds no customer-wide lookup reaches: per purchase (its original transaction), when it was
                -- last asked and how many refunds Apple listed. The recovery run asks the least recently asked
                -- first, a bounded number a run.
                CREATE TABLE verifier.refund_lookups (
                    app_id text NOT NULL,
                    environment text NOT NULL,
                    original_transaction_id text NOT NULL,
                    checked_at timestamptz NOT NULL,
                    refunds integer NOT NULL DEFAULT 0,
                    PRIMARY KEY (app_id, environment, original_transaction_id)
                );
                """
        ),
        Migration(
            "0012_verification_attempts_by_id",
            sql: """
                -- `GET /v1/admin/verification-attempts` pages an app's attempts newest first (by id), and finds one
                -- customer's: support's "why was my purchase refused".
                CREATE INDEX verification_attempts_by_app_id ON verifier.verification_attempts (app_id, id);
                CREATE INDEX verification_attempts_by_customer
                    ON verifier.verification_attempts (app_id, app_user_id, id);
                """
        ),
        Migration(
            "0013_stripe_credentials",
            sql: """
                -- Stripe is a third store: an app's secret key and webhook signing secrets, sealed like the others.
                ALTER TABLE verifier.store_credentials DROP CONSTRAINT store_credentials_store_check;
                ALTER TABLE verifier.store_credentials ADD CONSTRAINT store_credentials_store_check
                    CHECK (store IN ('apple', 'google', 'stripe'));
                """
        ),
        Migration(
            "0014_transactions_by_product",
            sql: """
                -- The catalog sync asks which store products of an app have purchases (never deleted for a store's
                -- word); without this it would read every transaction of every app.
                CREATE INDEX transactions_by_product ON verifier.transactions (app_id, store, store_product_id);
                """
        ),
    ]
}
