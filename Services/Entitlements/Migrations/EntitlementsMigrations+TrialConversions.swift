import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// The app trials' conversions moved to the subscriptions service, which owns the trials (``TrialConversion``).
    static let trialConversionsMoved: [Migration] = [
        Migration(
            "0029_trial_conversions_moved",
            sql: """
                -- Conversions are recorded in subscriptions.trial_conversions (through
                -- subscriptions.record_trial_conversion_v1), and the subscriptions report reads them there: nothing
                -- reads this view any more. The table stays, no longer written, as the source of the subscriptions
                -- migration that copied it (0008_trial_conversions, which may run after this one); a later release
                -- drops it.
                DROP VIEW entitlements.trial_conversions_v1;
                """
        )
    ]
}
