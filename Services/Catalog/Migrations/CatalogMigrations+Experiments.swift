import ShopkeeperDatabase

extension CatalogMigrations {
    /// Migration 0008: experiments, their variants, and each customer's first exposure; 0009 publishes the exposures.
    static let experiments: [Migration] = [
        Migration(
            "0008_experiments",
            sql: """
                -- An experiment compares 2 to 4 offerings over an audience (`audience`: a rule id or a rule's
                -- conditions, as the developer wrote it). A draft serves nothing and may be edited; running serves;
                -- stopped is for good.
                CREATE TABLE catalog.experiments (
                    app_id text NOT NULL,
                    experiment_id text NOT NULL,
                    name text NOT NULL,
                    audience jsonb,
                    state text NOT NULL DEFAULT 'draft' CHECK (state IN ('draft', 'running', 'stopped')),
                    created_at timestamptz NOT NULL DEFAULT now(),
                    started_at timestamptz,
                    stopped_at timestamptz,
                    PRIMARY KEY (app_id, experiment_id),
                    CHECK ((state = 'draft') = (started_at IS NULL)),
                    CHECK ((state = 'stopped') = (stopped_at IS NOT NULL))
                );
                CREATE INDEX experiments_running ON catalog.experiments (app_id) WHERE state = 'running';

                -- The variants, in order; an offering a variant serves cannot be deleted (the results name it).
                CREATE TABLE catalog.experiment_variants (
                    app_id text NOT NULL,
                    experiment_id text NOT NULL,
                    position integer NOT NULL CHECK (position BETWEEN 0 AND 3),
                    variant_key text NOT NULL,
                    offering_id text NOT NULL,
                    weight integer NOT NULL CHECK (weight > 0),
                    PRIMARY KEY (app_id, experiment_id, variant_key),
                    UNIQUE (app_id, experiment_id, position),
                    FOREIGN KEY (app_id, experiment_id) REFERENCES catalog.experiments (app_id, experiment_id)
                        ON DELETE CASCADE,
                    CONSTRAINT experiment_variants_offering_fkey FOREIGN KEY (app_id, offering_id)
                        REFERENCES catalog.offerings (app_id, offering_id)
                );
                CREATE INDEX experiment_variants_by_offering ON catalog.experiment_variants (app_id, offering_id);

                -- Variants and weights are fixed once an experiment has started: whatever writes them.
                CREATE FUNCTION catalog.check_experiment_variants_editable() RETURNS trigger
                LANGUAGE plpgsql AS $$
                DECLARE
                    row_app text := CASE WHEN TG_OP = 'DELETE' THEN OLD.app_id ELSE NEW.app_id END;
                    row_experiment text := CASE WHEN TG_OP = 'DELETE' THEN OLD.experiment_id ELSE NEW.experiment_id END;
                BEGIN
                    IF EXISTS (SELECT 1 FROM catalog.experiments
                               WHERE app_id = row_app AND experiment_id = row_experiment AND state <> 'draft')
                    THEN
                        RAISE EXCEPTION 'experiment % has started: its variants are fixed', row_experiment
                            USING ERRCODE = '23514', CONSTRAINT = 'experiment_variants_fixed';
                    END IF;
                    RETURN NULL;
                END;
                $$;
                CREATE TRIGGER experiment_variants_fixed
                    AFTER INSERT OR UPDATE OR DELETE ON catalog.experiment_variants
                    FOR EACH ROW EXECUTE FUNCTION catalog.check_experiment_variants_editable();

                -- Each customer's first exposure to an experiment (when offerings were served with one of its
                -- variants), once: `customer_key` is the customer's canonical id (the app user id the customer was
                -- first known by, or the id asked with while no customer has it). Written with ON CONFLICT DO NOTHING, so concurrent answers
                -- keep the first.
                CREATE TABLE catalog.experiment_exposures (
                    app_id text NOT NULL,
                    experiment_id text NOT NULL,
                    customer_key text NOT NULL,
                    variant_key text NOT NULL,
                    app_user_id text NOT NULL,
                    first_exposed_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, experiment_id, customer_key),
                    FOREIGN KEY (app_id, experiment_id, variant_key)
                        REFERENCES catalog.experiment_variants (app_id, experiment_id, variant_key) ON DELETE CASCADE
                );
                """
        ),
        Migration(
            "0009_experiment_exposures_view",
            sql: """
                -- Published for entitlements, which stamps each customer's later events with the experiments the
                -- customer was exposed to: found by the customer's ids (`customer_key` is an app user id).
                CREATE INDEX experiment_exposures_by_customer ON catalog.experiment_exposures (app_id, customer_key);
                CREATE VIEW catalog.experiment_exposures_v1 AS
                SELECT app_id, experiment_id, customer_key, variant_key, first_exposed_at
                FROM catalog.experiment_exposures;
                """
        ),
    ]
}
