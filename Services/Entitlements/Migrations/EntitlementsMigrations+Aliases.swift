import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// Who linked each id, and the ids the customer boundary suspended (``AliasRepository``).
    static let aliasOrigins: [Migration] = [
        Migration(
            "0028_aliases_linked_by",
            sql: """
                -- How an id came to address its customer: NULL for the id a customer was created under, 'public' or
                -- 'secret' for a link (`POST /v1/customers/{id}/aliases`) made with that kind of key, 'unknown' for a
                -- link made before this column existed. A link by the public key is one nobody proved: switching the
                -- app to the `signed` customer boundary suspends those (and the unknown ones) until the secret key
                -- confirms each.
                ALTER TABLE entitlements.aliases ADD COLUMN linked_by text
                    CHECK (linked_by IN ('public', 'secret', 'unknown'));
                UPDATE entitlements.aliases a SET linked_by = 'unknown'
                WHERE a.linked_by IS NULL AND EXISTS (
                    SELECT 1 FROM entitlements.events e
                    WHERE e.app_id = a.app_id AND e.type = 'alias'
                      AND e.payload ->> 'from_app_user_id' = a.app_user_id);

                -- Ids taken out of `aliases` when the app switched to `signed`: they name no customer until the secret
                -- key confirms them (linked again to `customer_id`'s customer, or to the one it was merged into).
                CREATE TABLE entitlements.suspended_aliases (
                    app_id text NOT NULL,
                    app_user_id text NOT NULL,
                    customer_id uuid NOT NULL,
                    linked_by text NOT NULL CHECK (linked_by IN ('public', 'unknown')),
                    suspended_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, app_user_id)
                );
                """
        )
    ]
}
