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
    /// The developer granted an entitlement.
    case promotionalGrant = "promotional_grant"
    /// The developer revoked a promotional grant.
    case promotionalGrantRevoked = "promotional_grant_revoked"
    /// Two ids were linked to one customer.
    case alias
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

    enum CodingKeys: String, CodingKey {
        case store, environment, quantity, balance, currency, source, reason, aliases
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
    }
}
