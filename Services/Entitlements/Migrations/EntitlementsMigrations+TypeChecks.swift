import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// The words the service's enums spell (`ProductType`, `EventType` in ShopkeeperModels), checked by the database
    /// too, so a row no enum can decode is never written. `TypeCheckTests` holds each list to its enum.
    static let typeChecks: [Migration] = [
        Migration(
            "0033_type_checks",
            sql: """
                -- A purchase's type: the catalog's, else the store's own, else `unknown` (`purchase_type_v1`).
                ALTER TABLE entitlements.purchases ADD CONSTRAINT purchases_product_type_known CHECK (
                    product_type IN ('consumable', 'non_consumable', 'auto_renewable', 'non_renewing', 'unknown'))
                    NOT VALID;
                ALTER TABLE entitlements.purchases VALIDATE CONSTRAINT purchases_product_type_known;

                -- Every event the outbox delivers, and the subscription changes parked until their purchase has an
                -- owner (relayed from `subscriptions.changes`, whose own check names the subscription events): one
                -- list, in an IMMUTABLE function both checks call.
                CREATE FUNCTION entitlements.event_type_known_v1(p_type text) RETURNS boolean
                LANGUAGE sql IMMUTABLE AS $$
                    SELECT p_type IN (
                        'initial_purchase', 'non_renewing_purchase', 'consumable_purchase', 'consumed', 'transfer',
                        'refund', 'revocation', 'refund_reversed', 'promotional_grant', 'promotional_grant_revoked',
                        'alias', 'subscription_started', 'renewal', 'cancellation', 'uncancellation', 'billing_issue',
                        'grace_period_started', 'expiration', 'product_change', 'trial_started', 'trial_converted',
                        'trial_expired', 'consent_rescinded', 'external_purchase_token')
                $$;
                ALTER TABLE entitlements.events ADD CONSTRAINT events_type_known
                    CHECK (entitlements.event_type_known_v1(type)) NOT VALID;
                ALTER TABLE entitlements.events VALIDATE CONSTRAINT events_type_known;
                ALTER TABLE entitlements.parked_changes ADD CONSTRAINT parked_changes_type_known
                    CHECK (entitlements.event_type_known_v1(type)) NOT VALID;
                ALTER TABLE entitlements.parked_changes VALIDATE CONSTRAINT parked_changes_type_known;
                """
        )
    ]
}
