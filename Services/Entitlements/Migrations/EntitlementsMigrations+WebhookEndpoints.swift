import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// Several webhook endpoints per app, each with its own secret, filters and payload format; every event fans out
    /// to the endpoints whose filters match it, one delivery each.
    static let webhookEndpoints: [Migration] = [
        Migration(
            "0039_webhook_endpoints",
            sql: """
                -- Where an app's events go. `event_types` and `environments` NULL: every type, every environment
                -- (`sandbox` stands for every test environment: sandbox, xcode, local_testing). `from_settings`: the
                -- endpoint `webhook_url` of PUT /v1/admin/entitlements/settings names (one per app at most). The secret
                -- is sealed (`WebhookSecretBox`, the app id bound); NULL only for a plaintext secret an earlier release
                -- left in `app_settings`, which the dispatcher seals before its first claim.
                CREATE TABLE entitlements.webhook_endpoints (
                    endpoint_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                    app_id text NOT NULL,
                    url text NOT NULL,
                    description text NOT NULL DEFAULT '',
                    event_types text[] CHECK (cardinality(event_types) > 0),
                    environments text[] CHECK (
                        cardinality(environments) > 0 AND environments <@ ARRAY['production', 'sandbox']),
                    format text NOT NULL DEFAULT 'shopkeeper' CHECK (format IN ('shopkeeper', 'cloudevents')),
                    enabled boolean NOT NULL DEFAULT true,
                    from_settings boolean NOT NULL DEFAULT false,
                    secret_sealed bytea,
                    secret_key_id text,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now()
                );
                CREATE INDEX webhook_endpoints_by_app ON entitlements.webhook_endpoints (app_id, created_at);
                CREATE UNIQUE INDEX webhook_endpoints_from_settings ON entitlements.webhook_endpoints (app_id)
                    WHERE from_settings;

                -- Every app's webhook becomes its first endpoint, with its secret (sealed, or still in plaintext).
                INSERT INTO entitlements.webhook_endpoints (
                    app_id, url, from_settings, secret_sealed, secret_key_id, created_at)
                SELECT app_id, webhook_url, true, webhook_secret_sealed, webhook_secret_key_id, updated_at
                FROM entitlements.app_settings WHERE webhook_url IS NOT NULL;

                -- A delivery is of one event to one endpoint: at most one per pair, whatever writes it. Deliveries made
                -- before belong to the app's first endpoint; NULL once their endpoint is deleted (never claimed again).
                ALTER TABLE entitlements.webhook_deliveries ADD COLUMN endpoint_id uuid
                    REFERENCES entitlements.webhook_endpoints (endpoint_id) ON DELETE SET NULL;
                UPDATE entitlements.webhook_deliveries d SET endpoint_id = p.endpoint_id
                FROM entitlements.webhook_endpoints p WHERE p.app_id = d.app_id AND p.from_settings;
                ALTER TABLE entitlements.webhook_deliveries ADD COLUMN delivery_id uuid NOT NULL DEFAULT gen_random_uuid();
                ALTER TABLE entitlements.webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey;
                ALTER TABLE entitlements.webhook_deliveries ADD PRIMARY KEY (delivery_id);
                CREATE UNIQUE INDEX webhook_deliveries_once ON entitlements.webhook_deliveries (event_id, endpoint_id);
                CREATE INDEX webhook_deliveries_by_endpoint ON entitlements.webhook_deliveries (endpoint_id, state);
                -- When the delivery was last attempted (its last answer or failure), for an endpoint's statistics.
                ALTER TABLE entitlements.webhook_deliveries ADD COLUMN last_attempt_at timestamptz;
                CREATE INDEX webhook_deliveries_last_attempt
                    ON entitlements.webhook_deliveries (endpoint_id, last_attempt_at DESC) WHERE last_attempt_at IS NOT NULL;

                -- The webhook columns of `app_settings` are read no more: a replica of the previous release that would
                -- set one (and queue deliveries no endpoint owns) fails instead. A row still holding a plaintext secret
                -- cannot be written before it is sealed (0014's check): the dispatcher empties it when it seals.
                UPDATE entitlements.app_settings SET webhook_url = NULL, webhook_secret_sealed = NULL,
                    webhook_secret_key_id = NULL
                WHERE (webhook_url IS NOT NULL OR webhook_secret_sealed IS NOT NULL) AND webhook_secret_unsealed IS NULL;
                ALTER TABLE entitlements.app_settings ADD CONSTRAINT webhook_moved_to_endpoints
                    CHECK (webhook_url IS NULL AND webhook_secret_sealed IS NULL) NOT VALID;

                -- The fan-out, in one place for every writer of events (statements and functions alike): a delivery of
                -- each new event to each enabled endpoint of its app whose filters match it.
                CREATE FUNCTION entitlements.fan_out_event() RETURNS trigger
                LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO entitlements.webhook_deliveries (event_id, app_id, endpoint_id)
                    SELECT NEW.event_id, NEW.app_id, p.endpoint_id
                    FROM entitlements.webhook_endpoints p
                    WHERE p.app_id = NEW.app_id AND p.enabled
                        AND entitlements.endpoint_matches(p.event_types, p.environments, NEW.type, NEW.environment)
                    ON CONFLICT (event_id, endpoint_id) DO NOTHING;
                    RETURN NULL;
                END
                $$;

                -- Whether an endpoint's filters let an event of `event_type` in `environment` through. An event with
                -- no environment passes every environment filter.
                CREATE FUNCTION entitlements.endpoint_matches(
                    event_types text[], environments text[], event_type text, environment text) RETURNS boolean
                LANGUAGE sql IMMUTABLE AS $$
                    SELECT (event_types IS NULL OR event_type = ANY (event_types))
                        AND (environments IS NULL OR environment IS NULL
                            OR (CASE WHEN environment = 'production' THEN 'production' ELSE 'sandbox' END)
                                = ANY (environments))
                $$;

                CREATE TRIGGER events_fan_out AFTER INSERT ON entitlements.events
                    FOR EACH ROW EXECUTE FUNCTION entitlements.fan_out_event();
                """
        )
    ]
}
