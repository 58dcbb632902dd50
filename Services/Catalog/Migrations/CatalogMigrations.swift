import ShopkeeperDatabase

/// The catalog's schema changes, oldest first. Forward only: never edit a released one, add a new one.
enum CatalogMigrations {
    static let runner = MigrationRunner(schema: "catalog", migrations: all)

    static let all: [Migration] = [
        Migration(
            "0001_products",
            sql: """
                CREATE TABLE catalog.products (
                    app_id text NOT NULL,
                    product_id text NOT NULL,
                    type text NOT NULL,
                    review_state text NOT NULL,
                    cleared_for_sale boolean NOT NULL,
                    free boolean NOT NULL,
                    document jsonb NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, product_id)
                );

                -- One store product id maps to one product per app and platform: the verifier relies on it.
                CREATE TABLE catalog.store_products (
                    app_id text NOT NULL,
                    platform text NOT NULL,
                    store_product_id text NOT NULL,
                    product_id text NOT NULL,
                    PRIMARY KEY (app_id, platform, store_product_id),
                    FOREIGN KEY (app_id, product_id) REFERENCES catalog.products (app_id, product_id) ON DELETE CASCADE
                );
                CREATE INDEX store_products_by_product ON catalog.store_products (app_id, product_id);

                -- Bumped in the same transaction as every change: replicas compare it to know their cache is stale.
                CREATE TABLE catalog.revisions (
                    app_id text PRIMARY KEY,
                    revision bigint NOT NULL
                );

                -- Published for other services' hot paths (read only; commands go through the catalog's API).
                CREATE VIEW catalog.products_v1 AS
                SELECT p.app_id, p.product_id, p.type, p.review_state, p.cleared_for_sale, p.free,
                       p.document -> 'entitlements' AS entitlements,
                       (p.document ->> 'consumable_quantity')::integer AS consumable_quantity,
                       p.document ->> 'duration' AS duration,
                       p.document ->> 'trial_duration' AS trial_duration,
                       p.document ->> 'group' AS product_group,
                       p.document -> 'included_in_variants' AS included_in_variants
                FROM catalog.products p;

                CREATE VIEW catalog.store_products_v1 AS
                SELECT app_id, platform, store_product_id, product_id FROM catalog.store_products;
                """
        ),
        Migration(
            "0002_grandfathered_products",
            sql: """
                -- Published: the app version below which an app transaction's original version grants the product
                -- (`grandfathered_below_version`). A column added at the end, so readers of the view are unaffected.
                CREATE OR REPLACE VIEW catalog.products_v1 AS
                SELECT p.app_id, p.product_id, p.type, p.review_state, p.cleared_for_sale, p.free,
                       p.document -> 'entitlements' AS entitlements,
                       (p.document ->> 'consumable_quantity')::integer AS consumable_quantity,
                       p.document ->> 'duration' AS duration,
                       p.document ->> 'trial_duration' AS trial_duration,
                       p.document ->> 'group' AS product_group,
                       p.document -> 'included_in_variants' AS included_in_variants,
                       p.document ->> 'grandfathered_below_version' AS grandfathered_below_version
                FROM catalog.products p;
                """
        ),
        Migration(
            "0003_revisions_view",
            sql: """
                -- Published for readers that keep what they derive from the catalog (entitlements stores each
                -- customer's rendered info, which reads products' entitlement ids): the app's catalog revision, raised
                -- in the transaction of every catalog write. A reader keeps the revision it derived from, and derives
                -- again when the revision moved.
                CREATE VIEW catalog.revisions_v1 AS SELECT app_id, revision FROM catalog.revisions;
                """
        ),
    ]
}
