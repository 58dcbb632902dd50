import ShopkeeperDatabase

/// The gateway's schema changes, oldest first. Forward only: never edit a released one, add a new one.
enum GatewayMigrations {
    static let runner = MigrationRunner(schema: "gateway", migrations: all)

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
                -- 'signed' (a customer token for it, minted by the developer's server with one of the app's secrets).
                ALTER TABLE gateway.apps
                    ADD COLUMN customer_boundary text NOT NULL DEFAULT 'open'
                        CHECK (customer_boundary IN ('open', 'signed'));

                -- Customer token signing secrets, sealed (AES-GCM under a key derived from SHOPKEEPER_MASTER_KEY, the
                -- app and secret id bound as associated data); shown once at creation, never returned again.
                CREATE TABLE gateway.customer_token_secrets (
                    secret_id text PRIMARY KEY,
                    app_id text NOT NULL REFERENCES gateway.apps (app_id),
                    sealed bytea NOT NULL,
                    sealing_key_id text NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    revoked_at timestamptz
                );
                CREATE INDEX customer_token_secrets_by_app ON gateway.customer_token_secrets (app_id)
                    WHERE revoked_at IS NULL;
                """
        ),
    ]
}
