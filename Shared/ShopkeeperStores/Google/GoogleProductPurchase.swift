/// A one-time product purchase as the Play Developer API returns it
/// (`purchases.products.get`, Google's `ProductPurchase`), with Google's JSON field names.
/// Google writes 64-bit numbers (`purchaseTimeMillis`) as strings.
package struct GoogleProductPurchase: Codable, Sendable, Equatable {
    /// The `kind` Google sends.
    package static let kindValue = "androidpublisher#productPurchase"

    package var kind: String?
    /// UNIX milliseconds, as a decimal string.
    package var purchaseTimeMillis: String?
    /// One of ``GooglePurchaseState``'s raw values.
    package var purchaseState: Int?
    /// 0: yet to be consumed, 1: consumed.
    package var consumptionState: Int?
    package var developerPayload: String?
    package var orderId: String?
    /// Present only for purchases not made the normal way: 0 test (license testing), 1 promo, 2 rewarded.
    package var purchaseType: Int?
    /// 0: yet to be acknowledged, 1: acknowledged.
    package var acknowledgementState: Int?
    package var purchaseToken: String?
    package var productId: String?
    package var quantity: Int?
    package var obfuscatedExternalAccountId: String?
    package var obfuscatedExternalProfileId: String?
    /// ISO 3166-1 alpha-2 billing region.
    package var regionCode: String?
    package var refundableQuantity: Int?

    package init(
        kind: String? = kindValue, purchaseTimeMillis: String? = nil, purchaseState: Int? = nil,
        consumptionState: Int? = nil, developerPayload: String? = nil, orderId: String? = nil,
        purchaseType: Int? = nil, acknowledgementState: Int? = nil, purchaseToken: String? = nil,
        productId: String? = nil, quantity: Int? = nil, obfuscatedExternalAccountId: String? = nil,
        obfuscatedExternalProfileId: String? = nil, regionCode: String? = nil, refundableQuantity: Int? = nil
    ) {
        self.kind = kind
        self.purchaseTimeMillis = purchaseTimeMillis
        self.purchaseState = purchaseState
        self.consumptionState = consumptionState
        self.developerPayload = developerPayload
        self.orderId = orderId
        self.purchaseType = purchaseType
        self.acknowledgementState = acknowledgementState
        self.purchaseToken = purchaseToken
        self.productId = productId
        self.quantity = quantity
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.obfuscatedExternalProfileId = obfuscatedExternalProfileId
        self.regionCode = regionCode
        self.refundableQuantity = refundableQuantity
    }
}

/// `ProductPurchase.purchaseState`.
package enum GooglePurchaseState: Int, Codable, Sendable {
    case purchased = 0
    case canceled = 1
    case pending = 2
}

/// `ProductPurchase.purchaseType`, present only for purchases not made the normal way.
package enum GooglePurchaseType: Int, Codable, Sendable {
    /// Bought from a license-testing account: no money changed hands.
    case test = 0
    case promo = 1
    case rewarded = 2
}
