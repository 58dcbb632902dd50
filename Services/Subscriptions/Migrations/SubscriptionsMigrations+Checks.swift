import ShopkeeperDatabase

extension SubscriptionsMigrations {
    /// Check constraints on the columns that hold a Swift enum's raw value, so a row always decodes into the enum.
    static let checks: [Migration] = [
        Migration(
            "0009_change_type_check",
            sql: """
                -- The outbox's `type` is one of the events a subscription or trial change emits
                -- (EventType.subscriptionEvents, held to this list by ChangeTypeCheckTests). Rows are only ever
                -- written from that enum, so existing rows already satisfy it.
                ALTER TABLE subscriptions.changes ADD CONSTRAINT changes_type_check CHECK (type IN (
                    'subscription_started', 'renewal', 'cancellation', 'uncancellation', 'billing_issue',
                    'grace_period_started', 'expiration', 'product_change', 'trial_started', 'trial_converted',
                    'trial_expired'));
                """
        )
    ]
}
