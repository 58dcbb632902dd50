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
    /// Subscriptions with their state, auto-renewable ones from the subscriptions service.
    package var subscriptions: [SubscriptionInfo]
    /// The app's own free trial (`state` is `none` when the customer never started one).
    package var trial: TrialInfo
    /// Consumables, non-consumables and non-renewing purchases, oldest first.
    package var nonSubscriptionPurchases: [NonSubscriptionPurchase]
    /// Catalog product id to the unspent units; negative after a refund of units already spent.
    package var consumableBalances: [String: Int64]
    /// Products owned without a store purchase (claimed free, included in the paid variant, grandfathered), oldest
    /// first.
    package var productGrants: [ProductGrantInfo]

    package enum CodingKeys: String, CodingKey {
        case aliases, entitlements, subscriptions, trial
        case appUserID = "app_user_id"
        case firstSeen = "first_seen"
        case lastSeen = "last_seen"
        case refundCount = "refund_count"
        case nonSubscriptionPurchases = "non_subscription_purchases"
        case consumableBalances = "consumable_balances"
        case productGrants = "product_grants"
    }
}

/// A product a customer owns without a store purchase, and why.
package struct ProductGrantInfo: Codable, Sendable, Equatable {
    package var productID: String
    /// `free` (claimed: the catalog marks it free), `included` (the customer's app transaction shows a paid variant
    /// that includes it) or `grandfathered` (the customer first got the app before a version the catalog names).
    package var source: String
    /// When the customer came to own it.
    package var grantedAt: Date

    package init(productID: String, source: String, grantedAt: Date) {
        self.productID = productID
        self.source = source
        self.grantedAt = grantedAt
    }

    package enum CodingKeys: String, CodingKey {
        case source
        case productID = "product_id"
        case grantedAt = "granted_at"
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
    /// `purchase`, `subscription`, `trial`, `promotional`, `free`, `included` or `grandfathered`.
    package var source: String

    package enum CodingKeys: String, CodingKey {
        case active, store, environment, source
        case expiresAt = "expires_at"
        case productID = "product_id"
        case purchaseDate = "purchase_date"
    }
}

/// A subscription of a customer: an auto-renewable subscription (its timeline lives in the subscriptions service) or
/// a stack of non-renewing purchases of one group (each purchase extends the end by its duration).
package struct SubscriptionInfo: Codable, Sendable, Equatable {
    package var productID: String?
    package var storeProductID: String?
    /// `auto_renewable` or `non_renewing`.
    package var type: String
    package var store: StorePlatform
    package var environment: StoreEnvironment
    /// The store's id of the subscription (its first transaction); the latest purchase for a non-renewing stack.
    package var originalTransactionID: String
    package var state: SubscriptionState
    /// Whether the subscription's entitlements are in force now.
    package var active: Bool
    package var periodType: SubscriptionPeriodType
    package var startedAt: Date?
    /// When the current (or last) paid period ends.
    package var expiresAt: Date?
    /// `nil` while the store has not said.
    package var willRenew: Bool?
    /// The store product the next period renews into, when it differs from the current one.
    package var renewsIntoStoreProductID: String?
    package var gracePeriodExpiresAt: Date?
    package var expirationReason: String?
    package var refundedAt: Date?
    package var revokedAt: Date?

    package init(
        productID: String?, storeProductID: String?, type: String, store: StorePlatform,
        environment: StoreEnvironment, originalTransactionID: String, state: SubscriptionState, active: Bool,
        periodType: SubscriptionPeriodType, startedAt: Date?, expiresAt: Date?, willRenew: Bool?,
        renewsIntoStoreProductID: String?, gracePeriodExpiresAt: Date?, expirationReason: String?, refundedAt: Date?,
        revokedAt: Date?
    ) {
        self.productID = productID
        self.storeProductID = storeProductID
        self.type = type
        self.store = store
        self.environment = environment
        self.originalTransactionID = originalTransactionID
        self.state = state
        self.active = active
        self.periodType = periodType
        self.startedAt = startedAt
        self.expiresAt = expiresAt
        self.willRenew = willRenew
        self.renewsIntoStoreProductID = renewsIntoStoreProductID
        self.gracePeriodExpiresAt = gracePeriodExpiresAt
        self.expirationReason = expirationReason
        self.refundedAt = refundedAt
        self.revokedAt = revokedAt
    }

    package enum CodingKeys: String, CodingKey {
        case type, store, environment, state, active
        case productID = "product_id"
        case storeProductID = "store_product_id"
        case originalTransactionID = "original_transaction_id"
        case periodType = "period_type"
        case startedAt = "started_at"
        case expiresAt = "expires_at"
        case willRenew = "will_renew"
        case renewsIntoStoreProductID = "renews_into_store_product_id"
        case gracePeriodExpiresAt = "grace_period_expires_at"
        case expirationReason = "expiration_reason"
        case refundedAt = "refunded_at"
        case revokedAt = "revoked_at"
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

extension CustomerInfo {
    /// When a customer Shopkeeper has not seen yet was "seen": the Unix epoch, a fixed instant, so the document of an
    /// unknown id (and its ETag) is the same on every read and a client's `If-None-Match` keeps matching.
    package static let neverSeen = Date(timeIntervalSince1970: 0)

    /// The info of an id no customer has yet: nothing owned, seen ``neverSeen``. Reading an unknown id answers this
    /// and creates nothing.
    package static func unknown(appUserID: String) -> CustomerInfo {
        CustomerInfo(
            appUserID: appUserID, aliases: [appUserID], firstSeen: neverSeen, lastSeen: neverSeen, refundCount: 0,
            entitlements: [:], subscriptions: [], trial: TrialInfo(state: .none), nonSubscriptionPurchases: [],
            consumableBalances: [:], productGrants: [])
    }
}
