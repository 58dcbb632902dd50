import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// Every event of a customer exposed to experiments names them: `experiments` in its payload lists each
    /// experiment the customer (by any of its ids) was first exposed to before the event, with the variant and when,
    /// as the catalog publishes them (`catalog.experiment_exposures_v1`). Stamped as the event is written, by one
    /// trigger, so every path that writes events (purchases, the subscriptions relay, refunds, grants) stamps alike,
    /// and a webhook delivered later carries what was true when the event happened.
    static let eventExperiments: [Migration] = [
        Migration(
            "0040_event_experiments",
            sql: """
                CREATE FUNCTION entitlements.stamp_event_experiments() RETURNS trigger
                LANGUAGE plpgsql AS $$
                DECLARE
                    stamped jsonb;
                BEGIN
                    -- Nothing to stamp: no customer, stamped already, or a catalog not yet upgraded (each service
                    -- migrates its own schema when it starts; an event is never refused for the catalog's sake).
                    IF NEW.customer_id IS NULL OR NEW.payload ? 'experiments'
                       OR to_regclass('catalog.experiment_exposures_v1') IS NULL THEN
                        RETURN NEW;
                    END IF;
                    -- One entry per experiment: a customer merged from two exposed ones keeps the earlier exposure.
                    SELECT jsonb_agg(jsonb_build_object(
                               'id', x.experiment_id, 'variant', x.variant_key,
                               'exposed_at', entitlements.iso(x.first_exposed_at))
                           ORDER BY x.first_exposed_at, x.experiment_id)
                    INTO stamped
                    FROM (
                        SELECT DISTINCT ON (e.experiment_id) e.experiment_id, e.variant_key, e.first_exposed_at
                        FROM entitlements.aliases a
                        JOIN catalog.experiment_exposures_v1 e
                            ON e.app_id = a.app_id AND e.customer_key = a.app_user_id
                        WHERE a.customer_id = NEW.customer_id AND a.app_id = NEW.app_id
                          AND e.first_exposed_at <= coalesce(NEW.created_at, now())
                        ORDER BY e.experiment_id, e.first_exposed_at
                    ) x;
                    IF stamped IS NOT NULL THEN
                        NEW.payload := NEW.payload || jsonb_build_object('experiments', stamped);
                    END IF;
                    RETURN NEW;
                END;
                $$;
                CREATE TRIGGER events_stamp_experiments BEFORE INSERT ON entitlements.events
                    FOR EACH ROW EXECUTE FUNCTION entitlements.stamp_event_experiments();
                """
        )
    ]
}
