import ShopkeeperDatabase

extension CatalogMigrations {
    /// Migration 0007: offerings and targeting rules.
    static let offerings: [Migration] = [
        Migration(
            "0007_offerings",
            sql: """
                -- An offering as the developer wrote it (`document`, like a product's), with the columns SQL holds rules
                -- on. Experiments will name offerings as their variants by (app_id, offering_id).
                CREATE TABLE catalog.offerings (
                    app_id text NOT NULL,
                    offering_id text NOT NULL,
                    is_default boolean NOT NULL,
                    document jsonb NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, offering_id)
                );
                -- At most one default per app ...
                CREATE UNIQUE INDEX offerings_one_default ON catalog.offerings (app_id) WHERE is_default;

                -- ... and at least one while the app has offerings, checked at commit, so a transaction may move the
                -- default from one offering to another.
                CREATE FUNCTION catalog.check_default_offering() RETURNS trigger
                LANGUAGE plpgsql AS $$
                DECLARE
                    checked_app text := CASE WHEN TG_OP = 'DELETE' THEN OLD.app_id ELSE NEW.app_id END;
                BEGIN
                    IF EXISTS (SELECT 1 FROM catalog.offerings WHERE app_id = checked_app)
                       AND NOT EXISTS (SELECT 1 FROM catalog.offerings WHERE app_id = checked_app AND is_default)
                    THEN
                        RAISE EXCEPTION 'app % has offerings but no default offering', checked_app
                            USING ERRCODE = '23514', CONSTRAINT = 'offerings_default_required';
                    END IF;
                    RETURN NULL;
                END;
                $$;
                CREATE CONSTRAINT TRIGGER offerings_default_required
                    AFTER INSERT OR UPDATE OR DELETE ON catalog.offerings
                    DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW EXECUTE FUNCTION catalog.check_default_offering();

                -- Each package's product: a product an offering sells cannot be deleted.
                CREATE TABLE catalog.offering_packages (
                    app_id text NOT NULL,
                    offering_id text NOT NULL,
                    package_id text NOT NULL,
                    position integer NOT NULL,
                    product_id text NOT NULL,
                    PRIMARY KEY (app_id, offering_id, package_id),
                    FOREIGN KEY (app_id, offering_id) REFERENCES catalog.offerings (app_id, offering_id)
                        ON DELETE CASCADE,
                    CONSTRAINT offering_packages_product_fkey FOREIGN KEY (app_id, product_id)
                        REFERENCES catalog.products (app_id, product_id)
                );
                CREATE INDEX offering_packages_by_product ON catalog.offering_packages (app_id, product_id);

                -- A package's own store product id on a platform must be one the catalog maps to the package's product
                -- (checked at commit: a product's store ids are rewritten within its own write).
                CREATE UNIQUE INDEX store_products_owner
                    ON catalog.store_products (app_id, platform, store_product_id, product_id);
                CREATE TABLE catalog.offering_package_store_products (
                    app_id text NOT NULL,
                    offering_id text NOT NULL,
                    package_id text NOT NULL,
                    platform text NOT NULL,
                    store_product_id text NOT NULL,
                    product_id text NOT NULL,
                    PRIMARY KEY (app_id, offering_id, package_id, platform),
                    FOREIGN KEY (app_id, offering_id, package_id)
                        REFERENCES catalog.offering_packages (app_id, offering_id, package_id) ON DELETE CASCADE,
                    CONSTRAINT offering_package_store_products_store_fkey
                        FOREIGN KEY (app_id, platform, store_product_id, product_id)
                        REFERENCES catalog.store_products (app_id, platform, store_product_id, product_id)
                        DEFERRABLE INITIALLY DEFERRED
                );
                CREATE INDEX offering_package_store_products_by_store
                    ON catalog.offering_package_store_products (app_id, platform, store_product_id, product_id);

                -- Targeting rules in the order they are tried; a rule's offering cannot be deleted.
                CREATE TABLE catalog.offering_rules (
                    app_id text NOT NULL,
                    rule_id text NOT NULL,
                    position integer NOT NULL,
                    offering_id text NOT NULL,
                    document jsonb NOT NULL,
                    PRIMARY KEY (app_id, rule_id),
                    UNIQUE (app_id, position) DEFERRABLE INITIALLY DEFERRED,
                    CONSTRAINT offering_rules_offering_fkey FOREIGN KEY (app_id, offering_id)
                        REFERENCES catalog.offerings (app_id, offering_id)
                );
                CREATE INDEX offering_rules_by_offering ON catalog.offering_rules (app_id, offering_id);
                """
        )
    ]
}
