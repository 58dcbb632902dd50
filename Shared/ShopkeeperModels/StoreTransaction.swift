import Foundation

/// A verified store transaction in one shape for every store: what the verifier records once per
/// (store, transaction id) and what `POST /v1/purchases` answers with.
package struct StoreTransaction: Codable, Sendable, Equatable {
    package var store: StorePlatform
    package var environment: StoreEnvironment
    package var transactionID: String
    package var originalTransactionID: String
    /// The product id at the store (App Store product id, Play product id).
    package var storeProductID: String
    /// The kind of purchase when the store says (StoreKit 2 does; receipts and Play say only whether it is a
    /// subscription); otherwise the catalog's product type decides.
    package var type: ProductType?
    package var quantity: Int
    package var purchaseDate: Date
    package var originalPurchaseDate: Date?
    package var expiresDate: Date?
    package var revocationDate: Date?
    package var revocationReason: RevocationReason?
    package var ownershipType: OwnershipType
    package var offer: StoreOffer?
    /// Apple's `appAccountToken`, set by the app at purchase time.
    package var appAccountToken: String?
    /// Google's obfuscated external account id, set by the app at purchase time.
    package var obfuscatedAccountID: String?
    /// Price in thousandths of `currency` (Apple's milliunits), when the store says.
    package var priceMilliunits: Int64?
    package var currency: String?
    package var storefront: String?
    /// When the store said this transaction's earlier refund or revocation was reversed (Apple's `REFUND_REVERSED`),
    /// so that it is in force again. Set only from a store notification; a refund or revocation dated at or before it
    /// is the one reversed, never news.
    package var revocationReversedAt: Date?
    /// Units of a multi-quantity purchase the store has refunded so far without taking back the whole purchase
    /// (Google Play's quantity-based partial refunds: `quantity` less the purchase's `refundableQuantity`); `nil`
    /// when none. A running total, so that every report of the same refund says the same: entitlements claws back
    /// only what it adds to what it already took back.
    package var refundedQuantity: Int?

    package init(
        store: StorePlatform, environment: StoreEnvironment, transactionID: String, originalTransactionID: String,
        storeProductID: String, type: ProductType?, quantity: Int, purchaseDate: Date,
        originalPurchaseDate: Date? = nil, expiresDate: Date? = nil, revocationDate: Date? = nil,
        revocationReason: RevocationReason? = nil, ownershipType: OwnershipType = .purchased, offer: StoreOffer? = nil,
        appAccountToken: String? = nil, obfuscatedAccountID: String? = nil, priceMilliunits: Int64? = nil,
        currency: String? = nil, storefront: String? = nil, revocationReversedAt: Date? = nil,
        refundedQuantity: Int? = nil
    ) {
        self.store = store
        self.environment = environment
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.storeProductID = storeProductID
        self.type = type
        self.quantity = quantity
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.ownershipType = ownershipType
        self.offer = offer
        self.appAccountToken = appAccountToken
        self.obfuscatedAccountID = obfuscatedAccountID
        self.priceMilliunits = priceMilliunits
        self.currency = currency
        self.storefront = storefront
        self.revocationReversedAt = revocationReversedAt
        self.refundedQuantity = refundedQuantity
    }

    package enum CodingKeys: String, CodingKey {
        case store, environment, type, quantity, offer, currency, storefront
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case storeProductID = "store_product_id"
        case purchaseDate = "purchase_date"
        case originalPurchaseDate = "original_purchase_date"
        case expiresDate = "expires_date"
        case revocationDate = "revocation_date"
        case revocationReason = "revocation_reason"
        case ownershipType = "ownership_type"
        case appAccountToken = "app_account_token"
        case obfuscatedAccountID = "obfuscated_account_id"
        case priceMilliunits = "price_milliunits"
        case revocationReversedAt = "revocation_reversed_at"
        case refundedQuantity = "refunded_quantity"
    }
}

/// Real money or a test purchase. Only `production` is revenue.
package enum StoreEnvironment: String, Codable, Sendable, CaseIterable {
    case production
    /// The store's test environment (Apple's sandbox and TestFlight, Play's license testers).
    case sandbox
    /// Signed on a developer's Mac by Xcode's StoreKit Testing (Apple's `Xcode` environment), not by Apple.
    case xcode
    /// Signed locally by StoreKit Testing (Apple's `LocalTesting` environment), not by Apple.
    case localTesting = "local_testing"

    /// The environments an app's store credentials may accept purchases from by name; `xcode` and `local_testing`
    /// are governed by the app's StoreKit test certificate instead.
    package static let storeEnvironments: [StoreEnvironment] = [.production, .sandbox]

    /// Whether purchases in this environment were signed by a developer's own tools rather than by the store.
    package var isLocalTesting: Bool { self == .xcode || self == .localTesting }
}

/// Why a store took a purchase back.
package enum RevocationReason: String, Codable, Sendable, CaseIterable {
    /// Refunded because of a problem with the app (Apple's reason 1).
    case appIssue = "app_issue"
    /// Refunded or revoked for another reason (Apple's reason 0, Family Sharing revoked, Google voided).
    case other
}

/// Bought by the customer, or shared with them by a family member.
package enum OwnershipType: String, Codable, Sendable, CaseIterable {
    case purchased
    case familyShared = "family_shared"
}

/// The offer a purchase was made with.
package struct StoreOffer: Codable, Sendable, Equatable {
    /// `introductory`, `promotional`, `offer_code`, `win_back` or the store's own word.
    package var type: String
    package var identifier: String?
    /// `free_trial`, `pay_as_you_go`, `pay_up_front`, `one_time`.
    package var discountType: String?
    /// ISO 8601 duration of the offer.
    package var period: String?

    package init(type: String, identifier: String? = nil, discountType: String? = nil, period: String? = nil) {
        self.type = type
        self.identifier = identifier
        self.discountType = discountType
        self.period = period
    }

    package enum CodingKeys: String, CodingKey {
        case type, identifier, period
        case discountType = "discount_type"
    }
}
