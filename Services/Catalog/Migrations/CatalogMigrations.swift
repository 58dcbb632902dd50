import ShopkeeperDatabase

/// The catalog's schema changes, oldest first. Forward only: never edit a released one, add a new one.
enum CatalogMigrations {
    static let runner = MigrationRunner(schema: "catalog", migrations: all)

    /// Every migration, in order: the first ones, then those of each later change.
    static let all: [Migration] = products + offerings + experiments + syncHistory

    /// Migrations 0001 to 0006: products, their store ids, revisions and store prices.
    static let products: [Migration] = [
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
        Migration(
            "0004_product_revisions",
            sql: """
                -- Published for readers that keep what they derive from some products only (entitlements' stored
                -- customer info): each product's revision, a number from one sequence taken in the transaction that
                -- creates the product, deletes it, or changes what customer info reads of it (its type, entitlement
                -- ids, duration, group, the variants that include it, the version below which it is grandfathered).
                -- A deleted product keeps its row, with the revision its deletion took, so a product's revision only
                -- ever grows, and a sum of the revisions of some products moves whenever one of them changes. A product
                -- that never existed has no row (read as 0).
                CREATE SEQUENCE catalog.product_revision_numbers;
                CREATE TABLE catalog.product_revisions (
                    app_id text NOT NULL,
                    product_id text NOT NULL,
                    revision bigint NOT NULL,
                    PRIMARY KEY (app_id, product_id)
                );
                INSERT INTO catalog.product_revisions (app_id, product_id, revision)
                SELECT app_id, product_id, nextval('catalog.product_revision_numbers') FROM catalog.products;

                -- A product created or deleted, or moved to another key (the old key's revision is bumped too).
                CREATE FUNCTION catalog.bump_product_revision() RETURNS trigger
                LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP <> 'INSERT' THEN
                        INSERT INTO catalog.product_revisions AS r (app_id, product_id, revision)
                        VALUES (OLD.app_id, OLD.product_id, nextval('catalog.product_revision_numbers'))
                        ON CONFLICT (app_id, product_id) DO UPDATE SET revision = excluded.revision;
                    END IF;
                    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE'
                        AND (NEW.app_id, NEW.product_id) IS DISTINCT FROM (OLD.app_id, OLD.product_id))
                    THEN
                        INSERT INTO catalog.product_revisions AS r (app_id, product_id, revision)
                        VALUES (NEW.app_id, NEW.product_id, nextval('catalog.product_revision_numbers'))
                        ON CONFLICT (app_id, product_id) DO UPDATE SET revision = excluded.revision;
                    END IF;
                    RETURN NULL;
                END;
                $$;
                CREATE TRIGGER products_revised AFTER INSERT OR DELETE ON catalog.products
                    FOR EACH ROW EXECUTE FUNCTION catalog.bump_product_revision();
                -- An update only when it changes what customer info reads of the product: the columns of
                -- `catalog.products_v1` that `CustomerInfoQuery` selects.
                CREATE TRIGGER products_revised_by_update AFTER UPDATE ON catalog.products
                    FOR EACH ROW
                    WHEN ((OLD.app_id, OLD.product_id, OLD.type, OLD.document -> 'entitlements',
                           OLD.document ->> 'duration', OLD.document ->> 'group',
                           OLD.document -> 'included_in_variants', OLD.document ->> 'grandfathered_below_version')
                          IS DISTINCT FROM
                          (NEW.app_id, NEW.product_id, NEW.type, NEW.document -> 'entitlements',
                           NEW.document ->> 'duration', NEW.document ->> 'group',
                           NEW.document -> 'included_in_variants', NEW.document ->> 'grandfathered_below_version'))
                    EXECUTE FUNCTION catalog.bump_product_revision();

                CREATE VIEW catalog.product_revisions_v1 AS
                SELECT app_id, product_id, revision FROM catalog.product_revisions;
                """
        ),
        Migration(
            "0005_product_type_check",
            sql: """
                -- A product's type is one of `ProductType`'s words (ShopkeeperModels); `TypeCheckTests` holds the
                -- list to the enum.
                ALTER TABLE catalog.products ADD CONSTRAINT products_type_known
                    CHECK (type IN ('consumable', 'non_consumable', 'auto_renewable', 'non_renewing')) NOT VALID;
                ALTER TABLE catalog.products VALIDATE CONSTRAINT products_type_known;
                """
        ),
        Migration(
            "0006_store_prices",
            sql: """
                -- Each product's price per store territory, as the last accepted catalog sync read it from the store
                -- (App Store Connect): the store is the truth for prices, this is the copy Shopkeeper keeps.
                CREATE TABLE catalog.store_prices (
                    app_id text NOT NULL,
                    product_id text NOT NULL,
                    platform text NOT NULL,
                    territory text NOT NULL,
                    currency text NOT NULL,
                    price numeric NOT NULL CHECK (price >= 0),
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, product_id, platform, territory),
                    FOREIGN KEY (app_id, product_id) REFERENCES catalog.products (app_id, product_id) ON DELETE CASCADE
                );

                -- Published: the synced prices (reports may price a sale from them).
                CREATE VIEW catalog.store_prices_v1 AS
                SELECT app_id, product_id, platform, territory, currency, price FROM catalog.store_prices;
                """
        ),
    ]
}
