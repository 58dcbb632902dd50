import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// Customers' stored info documents and what keeps them true (merged customers, last seen, the subscriptions'
    /// stamp).
    static let customerDocuments: [Migration] = [
        Migration(
            "0021_customers_merged_index",
            sql: """
                -- Customer info reads the customers merged into the one it renders (`merged_into = $customer`) on every
                -- read: without an index that was a scan of every customer of every app (20 ms at 350,000 customers,
                -- the whole cost of a read). Few customers are ever merged, so the index holds only those.
                CREATE INDEX customers_merged ON entitlements.customers (merged_into) WHERE merged_into IS NOT NULL;
                """
        ),
        Migration(
            "0022_last_seen_notifies_nothing",
            sql: """
                -- A customer's `last_seen` is refreshed by reads (an app launch after ten minutes or more) and by every
                -- write. Alone, that change no longer notifies every replica to drop the customer's cached info: the
                -- replica that made it renders the info afresh, the others' copies show an older `last_seen` for at
                -- most the cache's lifetime (SHOPKEEPER_CUSTOMER_CACHE_MS, 1 s), and a NOTIFY per app launch was a
                -- commit-time lock every read took. Any other change of the row still notifies, as does every change
                -- of what the info shows (purchases, balances, grants, aliases: their own triggers).
                DROP TRIGGER customers_changed ON entitlements.customers;
                CREATE TRIGGER customers_changed AFTER INSERT OR DELETE ON entitlements.customers
                    FOR EACH ROW EXECUTE FUNCTION entitlements.notify_customer_change();
                CREATE TRIGGER customers_updated AFTER UPDATE ON entitlements.customers
                    FOR EACH ROW
                    WHEN ((OLD.customer_id, OLD.app_id, OLD.first_seen, OLD.refund_count, OLD.merged_into)
                          IS DISTINCT FROM (NEW.customer_id, NEW.app_id, NEW.first_seen, NEW.refund_count, NEW.merged_into))
                    EXECUTE FUNCTION entitlements.notify_customer_change();
                """
        ),
        Migration(
            "0023_customer_documents",
            sql: """
                -- Each customer's info as last rendered, so that an app launch reads one row instead of rendering from
                -- every table (`CustomerInfoQuery`). `body` is the document without `app_user_id` and `last_seen` (a
                -- reader puts in the id it asked by and the time it saw): NULL when something it shows changed since.
                -- A stored body counts while its app's catalog revision is the one it was rendered with and until
                -- `valid_until` (the next end or start it shows passing by itself).
                --
                -- Every change that notifies a customer's change also forgets the customer's document (and the one
                -- of the customer it is merged into), giving it a new `version` from a sequence. A render stores its
                -- body only if the version is still the one its own snapshot saw: a render from before a change that
                -- committed (or is committing) meanwhile is never stored over the change.
                CREATE SEQUENCE entitlements.customer_document_versions;
                CREATE TABLE entitlements.customer_documents (
                    customer_id uuid PRIMARY KEY,
                    version bigint NOT NULL,
                    -- The transaction that forgot it last, until a render stores it: forgotten once per transaction,
                    -- however many rows of the customer it writes.
                    forgotten_by xid8,
                    body text,
                    catalog_revision bigint,
                    valid_until timestamptz
                );

                CREATE FUNCTION entitlements.forget_customer_document(p_customer uuid) RETURNS void
                LANGUAGE plpgsql AS $$
                DECLARE
                    target uuid;
                BEGIN
                    FOR target IN
                        SELECT p_customer
                        UNION
                        SELECT merged_into FROM entitlements.customers
                        WHERE customer_id = p_customer AND merged_into IS NOT NULL
                    LOOP
                        INSERT INTO entitlements.customer_documents AS d (customer_id, version, forgotten_by)
                        VALUES (target, nextval('entitlements.customer_document_versions'), pg_current_xact_id())
                        ON CONFLICT (customer_id) DO UPDATE
                            SET version = excluded.version, forgotten_by = excluded.forgotten_by, body = NULL
                            WHERE d.forgotten_by IS DISTINCT FROM excluded.forgotten_by;
                    END LOOP;
                END;
                $$;

                CREATE OR REPLACE FUNCTION entitlements.notify_customer_change() RETURNS trigger
                LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP <> 'INSERT' THEN
                        PERFORM pg_notify('entitlements_customer_changed', OLD.customer_id::text);
                        IF TG_OP = 'DELETE' AND TG_TABLE_NAME = 'customers' THEN
                            DELETE FROM entitlements.customer_documents WHERE customer_id = OLD.customer_id;
                        ELSE
                            PERFORM entitlements.forget_customer_document(OLD.customer_id);
                        END IF;
                    END IF;
                    IF TG_OP <> 'DELETE' THEN
                        PERFORM pg_notify('entitlements_customer_changed', NEW.customer_id::text);
                        IF TG_OP = 'INSERT' OR NEW.customer_id IS DISTINCT FROM OLD.customer_id THEN
                            PERFORM entitlements.forget_customer_document(NEW.customer_id);
                        END IF;
                    END IF;
                    RETURN NULL;
                END;
                $$;
                """
        ),
        Migration(
            "0024_customer_documents_subscriptions_stamp",
            sql: """
                -- What a stored body shows of the subscriptions service (its subscriptions change without a write
                -- here): the sum of the revisions (`subscriptions.subscriptions_v1`) of the customer's subscriptions
                -- the render read, -1 for a customer without any (`CustomerInfoQuery.subscriptionsStamp`). A read whose
                -- own sum differs renders again. NULL (bodies stored before this release) never matches.
                ALTER TABLE entitlements.customer_documents ADD COLUMN subscriptions_stamp numeric;
                """
        ),
    ]
}
