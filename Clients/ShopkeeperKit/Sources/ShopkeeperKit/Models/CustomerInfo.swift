import Foundation

/// What a customer owns now (schema `CustomerInfo`): the answer of `GET /v1/customers/{app_user_id}` and the
/// `customer` of purchases, restores, consumes and aliases. Fields the server adds later are ignored.
public struct CustomerInfo: Codable, Hashable, Sendable {
    /// The id the request addressed the customer by.
    public var appUserID: String
    /// Every id that addresses this customer, oldest first.
    public var aliases: [String]
    /// When Shopkeeper first saw the customer (1970 for an id not seen yet).
    public var firstSeen: Date
    /// The last change (or read, ten minutes apart).
    public var lastSeen: Date
    /// How many of the customer's purchases were refunded or revoked.
    public var refundCount: Int
    /// Entitlement id to its best grant.
    public var entitlements: [String: EntitlementInfo]
    /// Subscriptions with their state, oldest first.
    public var subscriptions: [SubscriptionInfo]
    /// The app's own free trial.
    public var trial: TrialInfo
    /// Consumables, non-consumables and non-renewing purchases, oldest first.
    public var nonSubscriptionPurchases: [NonSubscriptionPurchase]
    /// Catalog product id to its unspent units.
    public var consumableBalances: [String: Int]
    /// Products owned without a store purchase (claimed free, included in the app's paid variant, grandfathered).
    public var productGrants: [ProductGrant]

    enum CodingKeys: String, CodingKey {
        case aliases, entitlements, subscriptions, trial
        case appUserID = "app_user_id"
        case firstSeen = "first_seen"
        case lastSeen = "last_seen"
        case refundCount = "refund_count"
        case nonSubscriptionPurchases = "non_subscription_purchases"
        case consumableBalances = "consumable_balances"
        case productGrants = "product_grants"
    }

    /// The ids of the entitlements in force now.
    public var activeEntitlements: Set<String> {
        Set(entitlements.filter { $0.value.active }.map(\.key))
    }
}

/// One entitlement's best grant (schema `EntitlementInfo`).
public struct EntitlementInfo: Codable, Hashable, Sendable {
    /// Whether it is in force now.
    public var active: Bool
    /// When it ends or ended; `nil` for no end.
    public var expiresAt: Date?
    /// The product that grants it; `nil` for a promotional grant.
    public var productID: String?
    /// When it was bought or granted.
    public var purchaseDate: Date
    /// The store; `nil` for a promotional grant.
    public var store: StorePlatform?
    /// `production` or `sandbox`; `nil` for a promotional grant.
    public var environment: StoreEnvironment?
    /// `purchase`, `subscription`, `trial` or `promotional`.
    public var source: ServerValue

    enum CodingKeys: String, CodingKey {
        case active, store, environment, source
        case expiresAt = "expires_at"
        case productID = "product_id"
        case purchaseDate = "purchase_date"
    }
}

/// A subscription and its state (schema `SubscriptionInfo`).
public struct SubscriptionInfo: Codable, Hashable, Sendable {
    /// The catalog product of the current period.
    public var productID: String?
    /// The store product of the current period.
    public var storeProductID: String?
    /// `auto_renewable` or `non_renewing`.
    public var type: ProductType
    /// The store.
    public var store: StorePlatform
    /// `production` or `sandbox`.
    public var environment: StoreEnvironment
    /// The store's id of the subscription.
    public var originalTransactionID: String
    /// `trial`, `active`, `grace_period`, `billing_retry`, `paused`, `expired`, `revoked` or `refunded`.
    public var state: ServerValue
    /// Whether its entitlements are in force now.
    public var active: Bool
    /// `trial`, `intro` or `normal`.
    public var periodType: ServerValue
    /// When it started.
    public var startedAt: Date?
    /// When the current (or last) paid period ends.
    public var expiresAt: Date?
    /// Whether it renews; `nil` while the store has not said.
    public var willRenew: Bool?
    /// The store product the next period renews into, when it differs.
    public var renewsIntoStoreProductID: String?
    /// When the grace period ends.
    public var gracePeriodExpiresAt: Date?
    /// Why it expired.
    public var expirationReason: ServerValue?
    /// When it was refunded.
    public var refundedAt: Date?
    /// When it was revoked.
    public var revokedAt: Date?

    enum CodingKeys: String, CodingKey {
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

/// A consumable, non-consumable or non-renewing purchase (schema `NonSubscriptionPurchase`).
public struct NonSubscriptionPurchase: Codable, Hashable, Sendable {
    /// The catalog product; `nil` while the store product is not in the catalog.
    public var productID: String?
    /// The store's product id.
    public var storeProductID: String
    /// `consumable`, `non_consumable`, `non_renewing` or `unknown`.
    public var type: ProductType
    /// The store.
    public var store: StorePlatform
    /// `production` or `sandbox`.
    public var environment: StoreEnvironment
    /// The store's transaction id.
    public var transactionID: String
    /// The original transaction id.
    public var originalTransactionID: String
    /// When it was bought.
    public var purchaseDate: Date
    /// Units bought.
    public var quantity: Int
    /// When it was refunded or revoked.
    public var revokedAt: Date?
    /// `app_issue` or `other`.
    public var revocationReason: ServerValue?

    enum CodingKeys: String, CodingKey {
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

/// The app's own free trial of a customer (schema `TrialInfo`).
public struct TrialInfo: Codable, Hashable, Sendable {
    /// `none`, `active` or `expired`.
    public var state: ServerValue
    /// The trial's product.
    public var productID: String?
    /// When it started.
    public var startedAt: Date?
    /// When it ends.
    public var expiresAt: Date?

    enum CodingKeys: String, CodingKey {
        case state
        case productID = "product_id"
        case startedAt = "started_at"
        case expiresAt = "expires_at"
    }
}

/// Whether an introductory offer or free trial may be offered (schema `EligibilityInfo`).
public struct EligibilityInfo: Codable, Hashable, Sendable {
    /// The product asked about.
    public var productID: String
    /// Whether it may be offered, on any store.
    public var eligible: Bool
    /// Why not (`trial_used`, `intro_offer_used`, ...); `nil` when eligible.
    public var reason: ServerValue?

    enum CodingKeys: String, CodingKey {
        case eligible, reason
        case productID = "product_id"
    }
}

/// A product the customer owns without a store purchase, and why (schema `ProductGrant`).
public struct ProductGrant: Codable, Hashable, Sendable {
    /// The catalog product.
    public var productID: String
    /// `free` (claimed), `included` (a paid variant of the app includes it) or `grandfathered`.
    public var source: ServerValue
    /// When it was granted.
    public var grantedAt: Date

    enum CodingKeys: String, CodingKey {
        case source
        case productID = "product_id"
        case grantedAt = "granted_at"
    }
}

/// The answer to `POST /v1/customers/{app_user_id}/claims` (schema `ProductClaimResult`).
public struct ProductClaimResult: Codable, Hashable, Sendable {
    /// The claimed product.
    public var productID: String
    /// `free`, `included` or `grandfathered`.
    public var source: ServerValue
    /// When it was granted.
    public var grantedAt: Date
    /// Whether this call granted it (`false`: claimed before).
    public var created: Bool
    /// The customer as committed.
    public var customer: CustomerInfo

    enum CodingKeys: String, CodingKey {
        case source, created, customer
        case productID = "product_id"
        case grantedAt = "granted_at"
    }
}
