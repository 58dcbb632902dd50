/// The kinds of event the entitlements service writes to its outbox (and delivers to webhooks); the subscriptions
/// service emits the subscription ones (``subscriptionEvents``) through it. The one list of event names: the database
/// checks them too.
package enum EventType: String, Codable, Sendable, CaseIterable {
    /// A non-consumable (or an unknown product) bought for the first time.
    case initialPurchase = "initial_purchase"
    /// A non-renewing subscription bought.
    case nonRenewingPurchase = "non_renewing_purchase"
    /// A consumable bought and credited.
    case consumablePurchase = "consumable_purchase"
    /// Units of a consumable spent.
    case consumed
    /// A purchase moved between customers (written for both).
    case transfer
    /// The store refunded a purchase.
    case refund
    /// The store revoked a purchase without a refund to this customer (Family Sharing ended).
    case revocation
    /// The store reversed a refund or revocation: the purchase is in force again (and a consumable's units credited
    /// back).
    case refundReversed = "refund_reversed"
    /// The developer granted an entitlement.
    case promotionalGrant = "promotional_grant"
    /// The developer revoked a promotional grant.
    case promotionalGrantRevoked = "promotional_grant_revoked"
    /// Two ids were linked to one customer.
    case alias
    // Relayed from the subscriptions service (`subscriptions.changes_v1`).
    /// An auto-renewable subscription began with a paid period.
    case subscriptionStarted = "subscription_started"
    /// A new period of a subscription began.
    case renewal
    /// Auto-renew was switched off; the subscription ends with its period.
    case cancellation
    /// Auto-renew was switched back on.
    case uncancellation
    /// The store could not bill the renewal.
    case billingIssue = "billing_issue"
    /// The subscription stays in service while the store retries billing.
    case gracePeriodStarted = "grace_period_started"
    /// The subscription ended.
    case expiration
    /// The subscription moved to another product (upgrade, downgrade, crossgrade).
    case productChange = "product_change"
    /// A free trial began (a store's or the app's own).
    case trialStarted = "trial_started"
    /// A free trial became a paid period: the store's trial renewed into a paid one, or the app's own trial was
    /// followed by a purchase in its group.
    case trialConverted = "trial_converted"
    /// A free trial ended without becoming a paid period.
    case trialExpired = "trial_expired"
    // App-level facts a store told, which name no customer (`app_user_id` is null).
    /// The customer withdrew their consent (Apple's `RESCIND_CONSENT`, Declared Age Range): stop what needed it.
    case consentRescinded = "consent_rescinded"
    /// Apple created an external purchase token for the app, or reminds that one is unreported or still active
    /// (Apple's `EXTERNAL_PURCHASE_TOKEN`): report it to Apple.
    case externalPurchaseToken = "external_purchase_token"
}

extension EventType: SQLLiteralEnum {}

extension EventType {
    /// The events a subscription change emits (the subscriptions service's `changes_v1`, relayed by entitlements).
    package static let subscriptionEvents: Set<EventType> = [
        .subscriptionStarted, .renewal, .cancellation, .uncancellation, .billingIssue, .gracePeriodStarted,
        .expiration, .productChange, .trialStarted, .trialConverted, .trialExpired,
    ]
}
