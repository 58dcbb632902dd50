import ShopkeeperDatabase

extension GatewayMigrations {
    /// Migration 0007: the scheduled catalog sync's turns (``CatalogSyncSchedule``).
    static let catalogSyncSchedule: [Migration] = [
        Migration(
            "0007_catalog_sync_schedule",
            sql: """
                -- When each app's scheduled sync with each store is due, leased to one replica at a time: a claim
                -- moves `next_run_at` a lease ahead (`FOR UPDATE SKIP LOCKED`), a run that ends moves it an interval
                -- ahead, so every replica's job together syncs an app with a store once per interval.
                CREATE TABLE gateway.catalog_sync_schedule (
                    app_id text NOT NULL REFERENCES gateway.apps (app_id) ON DELETE CASCADE,
                    store text NOT NULL CHECK (store IN ('apple', 'google')),
                    next_run_at timestamptz NOT NULL DEFAULT now(),
                    lease_id uuid,
                    runs bigint NOT NULL DEFAULT 0,
                    last_run_at timestamptz,
                    last_outcome text,
                    PRIMARY KEY (app_id, store)
                );
                CREATE INDEX catalog_sync_schedule_due ON gateway.catalog_sync_schedule (next_run_at);
                """
        )
    ]
}
