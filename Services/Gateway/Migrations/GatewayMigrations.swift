import ShopkeeperDatabase

/// The gateway's schema changes, oldest first. Forward only: never edit a released one, add a new one.
enum GatewayMigrations {
    static let runner = MigrationRunner(schema: "gateway", migrations: all + catalogSyncSchedule)

    /// Migrations 0001 to 0006; later ones are in the extensions (`catalogSyncSchedule`: 0007).
    static let all: [Migration] = [
        Migration(
            "0001_apps_and_keys",
            sql: """
                CREATE TABLE gateway.apps (
                    app_id text PRIMARY KEY,
                    name text NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now()
                );

                -- Keys are stored only as SHA-256 hashes: they carry 190 random bits, so a slow hash adds nothing.
                CREATE TABLE gateway.api_keys (
                    key_id text PRIMARY KEY,
                    app_id text NOT NULL REFERENCES gateway.apps (app_id),
                    kind text NOT NULL CHECK (kind IN ('public', 'secret')),
                    key_hash bytea NOT NULL UNIQUE,
                    prefix text NOT NULL,
                    label text,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    revoked_at timestamptz
                );
                CREATE INDEX api_keys_by_app ON gateway.api_keys (app_id);

                -- Published for other services (read only).
                CREATE VIEW gateway.apps_v1 AS SELECT app_id, name, created_at FROM gateway.apps;
                """
        ),
        Migration(
            "0002_customer_boundary",
            sql: """
                -- How a public-key caller proves which customer it acts for: 'open' (naming it is enough) or
                -- 'signed' (a customer token for it, minted by the developer's server with one of the app's keys).
                ALTER TABLE gateway.apps
                    ADD COLUMN customer_boundary text NOT NULL DEFAULT 'open'
                        CHECK (customer_boundary IN ('open', 'signed'));

                -- What signs an app's customer tokens: HS256 secrets, sealed (AES-GCM under a key derived from
                -- SHOPKEEPER_MASTER_KEY, the app and key id bound as associated data; shown once at creation, never
                -- returned again), and ES256 public keys the app registered (the private key stays with the app's
                -- server).
                CREATE TABLE gateway.customer_token_keys (
                    key_id text PRIMARY KEY,
                    app_id text NOT NULL REFERENCES gateway.apps (app_id),
                    algorithm text NOT NULL CHECK (algorithm IN ('HS256', 'ES256')),
                    sealed bytea,
                    sealing_key_id text,
                    public_key text,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    revoked_at timestamptz,
                    CHECK (
                        (algorithm = 'HS256' AND sealed IS NOT NULL AND sealing_key_id IS NOT NULL
                            AND public_key IS NULL)
                        OR (algorithm = 'ES256' AND public_key IS NOT NULL AND sealed IS NULL
                            AND sealing_key_id IS NULL)
                    )
                );
                CREATE INDEX customer_token_keys_by_app ON gateway.customer_token_keys (app_id)
                    WHERE revoked_at IS NULL;
                """
        ),
        Migration(
            "0003_console_sessions_and_audit_log",
            sql: """
                -- Console sign-ins (POST /console/api/session): a secret key, or the operator key for one app, traded
                -- for a short-lived session. Only the SHA-256 of the session token is kept (it carries 256 random
                -- bits); never the key. An app key's session names the key, and ends with it: every request joins
                -- gateway.api_keys and refuses a revoked key. An operator session keeps an HMAC of the operator key
                -- it was opened with (under SHOPKEEPER_MASTER_KEY), so changing the operator key ends them all.
                CREATE TABLE gateway.console_sessions (
                    token_hash bytea PRIMARY KEY,
                    session_id text NOT NULL UNIQUE,
                    app_id text NOT NULL REFERENCES gateway.apps (app_id),
                    key_id text REFERENCES gateway.api_keys (key_id),
                    operator_fingerprint bytea,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    expires_at timestamptz NOT NULL,
                    idle_expires_at timestamptz NOT NULL,
                    CHECK ((key_id IS NULL) <> (operator_fingerprint IS NULL))
                );
                CREATE INDEX console_sessions_by_key ON gateway.console_sessions (key_id);
                CREATE INDEX console_sessions_by_expiry ON gateway.console_sessions (idle_expires_at);

                -- Every state-changing admin call (secret key, operator key or console session), written by the
                -- gateway once the call was answered: who, when, what, and how it ended. An idempotent retry (the
                -- same Idempotency-Key on the same call) is one entry. `app_id` is NULL for operator calls that
                -- concern no app yet (creating one).
                CREATE TABLE gateway.audit_log (
                    entry_id bigserial PRIMARY KEY,
                    app_id text,
                    at timestamptz NOT NULL DEFAULT now(),
                    actor text NOT NULL CHECK (actor IN ('secret_key', 'operator')),
                    key_id text,
                    session_id text,
                    method text NOT NULL,
                    path text NOT NULL,
                    action text NOT NULL,
                    targets jsonb NOT NULL DEFAULT '{}',
                    summary text NOT NULL,
                    status integer NOT NULL,
                    request_id text,
                    idempotency_key text
                );
                CREATE INDEX audit_log_by_app ON gateway.audit_log (app_id, entry_id);
                CREATE UNIQUE INDEX audit_log_once ON gateway.audit_log (app_id, method, path, idempotency_key)
                    WHERE idempotency_key IS NOT NULL;
                """
        ),
        Migration(
            "0004_answer_signing_keys",
            sql: """
                -- The Ed25519 keys that sign an app's answers (X-Shopkeeper-Signature, Services/Gateway/AnswerSigning).
                -- The private key is sealed under SHOPKEEPER_MASTER_KEY (purpose "answer signing keys", the app and
                -- key id as associated data); the public key is what the app trusts. Live keys are those not retired;
                -- the gateway signs with the live key activated last (the first key is active from its creation).
                CREATE TABLE gateway.answer_signing_keys (
                    key_id text PRIMARY KEY,
                    app_id text NOT NULL REFERENCES gateway.apps (app_id),
                    algorithm text NOT NULL DEFAULT 'Ed25519' CHECK (algorithm = 'Ed25519'),
                    public_key bytea NOT NULL CHECK (length(public_key) = 32),
                    sealed bytea NOT NULL,
                    sealing_key_id text NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    activated_at timestamptz,
                    retired_at timestamptz
                );
                CREATE INDEX answer_signing_keys_live ON gateway.answer_signing_keys (app_id, activated_at DESC)
                    WHERE retired_at IS NULL;
                """
        ),
        Migration(
            "0005_console_users",
            sql: """
                -- Console users (issue 40): per app, an email (trimmed, lowercase; unique in the app), a role, a
                -- password hashed with scrypt whose parameters are stored with it ('$scrypt$ln=..,r=..,p=..$salt$hash',
                -- NULL until the invitation is accepted), and an optional TOTP second factor: its secret sealed under
                -- SHOPKEEPER_MASTER_KEY (purpose "console TOTP secrets", the app and user id as associated data), the
                -- last time step a code was accepted for (each code works once), and a secret being enrolled until a
                -- code of it is confirmed. Failed sign-ins in a row are counted; past the limit the user is locked
                -- until locked_until.
                CREATE TABLE gateway.console_users (
                    user_id text PRIMARY KEY,
                    app_id text NOT NULL REFERENCES gateway.apps (app_id),
                    email text NOT NULL CHECK (email = lower(btrim(email)) AND email <> ''),
                    role text NOT NULL CHECK (role IN ('viewer', 'support', 'developer', 'admin')),
                    password_hash text,
                    totp_sealed bytea,
                    totp_pending_sealed bytea,
                    totp_sealing_key_id text,
                    totp_last_step bigint,
                    failed_sign_ins integer NOT NULL DEFAULT 0,
                    locked_until timestamptz,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    UNIQUE (app_id, email)
                );

                -- One-time invitations: only the SHA-256 of the token (256 random bits); used once, before it expires.
                CREATE TABLE gateway.console_invitations (
                    token_hash bytea PRIMARY KEY,
                    user_id text NOT NULL REFERENCES gateway.console_users (user_id) ON DELETE CASCADE,
                    expires_at timestamptz NOT NULL,
                    used_at timestamptz
                );
                CREATE INDEX console_invitations_by_user ON gateway.console_invitations (user_id);

                -- A session is now a key's, the operator's or a user's; removing the user ends its sessions.
                ALTER TABLE gateway.console_sessions
                    ADD COLUMN user_id text REFERENCES gateway.console_users (user_id) ON DELETE CASCADE;
                ALTER TABLE gateway.console_sessions DROP CONSTRAINT console_sessions_check;
                ALTER TABLE gateway.console_sessions ADD CONSTRAINT console_sessions_one_credential CHECK (
                    (key_id IS NOT NULL)::int + (operator_fingerprint IS NOT NULL)::int + (user_id IS NOT NULL)::int = 1);
                CREATE INDEX console_sessions_by_user ON gateway.console_sessions (user_id);

                -- The audit log names the user (its email as it was then) of a user's session.
                ALTER TABLE gateway.audit_log ADD COLUMN user_email text;
                ALTER TABLE gateway.audit_log DROP CONSTRAINT audit_log_actor_check;
                ALTER TABLE gateway.audit_log ADD CONSTRAINT audit_log_actor_check
                    CHECK (actor IN ('secret_key', 'operator', 'user'));
                """
        ),
        Migration(
            "0006_console_totp_attempts",
            sql: """
                -- Codes tried while enrolling a second factor are counted as failed sign-ins are (issue 40): each
                -- try is counted before its code is checked, a confirmed code clears the count, and the limit-th in
                -- a row locks enrolling until totp_locked_until. Kept with the user, so every gateway replica agrees.
                ALTER TABLE gateway.console_users
                    ADD COLUMN totp_attempts integer NOT NULL DEFAULT 0,
                    ADD COLUMN totp_locked_until timestamptz;
                """
        ),
    ]
}
