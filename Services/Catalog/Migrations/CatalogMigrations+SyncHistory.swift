import ShopkeeperDatabase

extension CatalogMigrations {
    /// Migrations 0010 and 0011: every price a catalog sync saw, with the time it came into force; and each store's
    /// last sync with its diff and outcomes.
    static let syncHistory: [Migration] = [
        Migration(
            "0010_store_price_history",
            sql: """
                -- Every price a catalog sync saw at a store, per store product and territory, from the time it came
                -- into force (when a sync first saw it: the stores' catalog APIs give no past prices). A row is added
                -- only when the price differs from the one in force; none is ever changed or deleted, and rows are
                -- kept by store product id, so a product deleted from the catalog keeps its history (its sales are
                -- still priced from it). `store_prices` keeps the latest price the operator accepted; this is the
                -- store's own history, recorded whether or not the change was accepted.
                CREATE TABLE catalog.store_price_history (
                    app_id text NOT NULL,
                    platform text NOT NULL,
                    store_product_id text NOT NULL,
                    territory text NOT NULL,
                    currency text NOT NULL,
                    price numeric NOT NULL CHECK (price >= 0),
                    effective_at timestamptz NOT NULL,
                    PRIMARY KEY (app_id, platform, store_product_id, territory, effective_at)
                );

                -- Published: reports price a sale the store gave no price for (Google Play) from the price in force
                -- in the buyer's region at the purchase time.
                CREATE VIEW catalog.store_price_history_v1 AS
                SELECT app_id, platform, store_product_id, territory, currency, price, effective_at
                FROM catalog.store_price_history;
                """
        ),
        Migration(
            "0011_sync_runs",
            sql: """
                -- The last catalog sync of each app and store (manual or scheduled, dry run or not): its diff, each
                -- change's outcome, and how many were applied, as `CatalogSyncResult` answers them.
                CREATE TABLE catalog.sync_runs (
                    app_id text NOT NULL,
                    store text NOT NULL,
                    trigger text NOT NULL CHECK (trigger IN ('manual', 'scheduled')),
                    dry_run boolean NOT NULL,
                    applied integer NOT NULL,
                    changes jsonb NOT NULL,
                    synced_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, store)
                );
                """
        ),
    ]
}
