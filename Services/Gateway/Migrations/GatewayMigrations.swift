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
    ]
}
