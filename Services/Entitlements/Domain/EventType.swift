/// The kinds of event the entitlements service writes to its outbox (and delivers to webhooks).
enum EventType: String, Codable, Sendable, CaseIterable {
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

/// The body of an event: what changed, in the same words as customer info. Absent fields are left out.
struct EventPayload: Codable, Sendable, Equatable {
    var productID: String?
    var storeProductID: String?
    var entitlementID: String?
    var store: String?
    var environment: String?
    var transactionID: String?
    var originalTransactionID: String?
    var purchaseDate: String?
    var expiresAt: String?
    var quantity: Int64?
    var balance: Int64?
    /// Price in thousandths of `currency`; never counted as revenue when `environment` is `sandbox`.
    var priceMilliunits: Int64?
    var currency: String?
    var source: String?
    var reason: String?
    var fromAppUserID: String?
    var toAppUserID: String?
    var aliases: [String]?
    var grantID: String?
    /// The app transaction a consent was rescinded for.
    var appTransactionID: String?
    /// Apple's external purchase id.
    var externalPurchaseID: String?
    /// When Apple created the external purchase token.
    var tokenCreationDate: String?
    /// The store's subtype of an app-level fact (`UNREPORTED`, `ACTIVE_TOKEN_REMINDER`, `CREATED`).
    var subtype: String?

    enum CodingKeys: String, CodingKey {
        case store, environment, quantity, balance, currency, source, reason, aliases, subtype
        case productID = "product_id"
        case storeProductID = "store_product_id"
        case entitlementID = "entitlement_id"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case purchaseDate = "purchase_date"
        case expiresAt = "expires_at"
        case priceMilliunits = "price_milliunits"
        case fromAppUserID = "from_app_user_id"
        case toAppUserID = "to_app_user_id"
        case grantID = "grant_id"
        case appTransactionID = "app_transaction_id"
        case externalPurchaseID = "external_purchase_id"
        case tokenCreationDate = "token_creation_date"
    }
}
