import Foundation

/// What a customer owns now: the answer of `GET /v1/customers/{app_user_id}`, of `POST /v1/purchases` and of
/// every other call that changes a customer.
package struct CustomerInfo: Codable, Sendable, Equatable {
    /// The id the request addressed the customer by.
    package var appUserID: String
    /// Every id that addresses this customer, oldest first.
    package var aliases: [String]
    package var firstSeen: Date
    package var lastSeen: Date
    /// How many of the customer's purchases were refunded or revoked.
    package var refundCount: Int
    /// Entitlement id to its best grant (active ones first, then the latest to end).
    package var entitlements: [String: EntitlementInfo]
    /// Subscriptions with their state (filled by the subscriptions service).
    package var subscriptions: [SubscriptionInfo]
    /// Consumables, non-consumables and non-renewing purchases, oldest first.
    package var nonSubscriptionPurchases: [NonSubscriptionPurchase]
    /// Catalog product id to the unspent units; negative after a refund of units already spent.
    package var consumableBalances: [String: Int64]

    package enum CodingKeys: String, CodingKey {
        case aliases, entitlements, subscriptions
        case appUserID = "app_user_id"
        case firstSeen = "first_seen"
        case lastSeen = "last_seen"
        case refundCount = "refund_count"
        case nonSubscriptionPurchases = "non_subscription_purchases"
        case consumableBalances = "consumable_balances"
    }
}

/// One entitlement of a customer and the grant behind it.
package struct EntitlementInfo: Codable, Sendable, Equatable {
    /// Whether the entitlement is in force now.
    package var active: Bool
    /// When it ends or ended; `nil` for a purchase that never ends.
    package var expiresAt: Date?
    /// The catalog product that grants it; `nil` for a promotional grant.
    package var productID: String?
    package var purchaseDate: Date
    /// `apple`, `google`, or `nil` for a promotional grant.
    package var store: StorePlatform?
    package var environment: StoreEnvironment?
    /// `purchase` or `promotional`.
    package var source: String

    package enum CodingKeys: String, CodingKey {
        case active, store, environment, source
        case expiresAt = "expires_at"
        case productID = "product_id"
        case purchaseDate = "purchase_date"
    }
}

/// A subscription of a customer (its timeline lives in the subscriptions service).
package struct SubscriptionInfo: Codable, Sendable, Equatable {
    package var productID: String?
    package var store: StorePlatform
    package var environment: StoreEnvironment
    package var expiresAt: Date?

    package enum CodingKeys: String, CodingKey {
        case store, environment
        case productID = "product_id"
        case expiresAt = "expires_at"
    }
}

/// A purchase that is not a subscription: a consumable, a non-consumable or a non-renewing subscription.
package struct NonSubscriptionPurchase: Codable, Sendable, Equatable {
    /// The catalog product; `nil` while the store product is unknown to the catalog.
    package var productID: String?
    package var storeProductID: String
    /// `consumable`, `non_consumable`, `non_renewing` or `unknown`.
    package var type: String
    package var store: StorePlatform
    package var environment: StoreEnvironment
    package var transactionID: String
    package var originalTransactionID: String
    package var purchaseDate: Date
    package var quantity: Int
    package var revokedAt: Date?
    package var revocationReason: String?

    package enum CodingKeys: String, CodingKey {
        case type, store, environment, quantity
        case productID = "product_id"
        case storeProductID = "store_product_id"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case purchaseDate = "purchase_date"
        case revokedAt = "revoked_at"
        case revocationReason = "revocation_reason"
    }
}
