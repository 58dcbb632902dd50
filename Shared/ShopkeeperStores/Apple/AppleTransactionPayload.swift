import Foundation

/// A StoreKit 2 transaction as Apple signs it: the payload of a `signedTransactionInfo` JWS
/// (Apple's `JWSTransactionDecodedPayload`), with Apple's field names and value types. Dates are
/// UNIX milliseconds; the `...Date` accessors convert them.
package struct AppleTransactionPayload: AppleSignedPayload, Codable, Equatable {
    package var transactionId: String?
    package var originalTransactionId: String?
    package var webOrderLineItemId: String?
    package var bundleId: String?
    package var productId: String?
    package var subscriptionGroupIdentifier: String?
    package var purchaseDate: Int64?
    package var originalPurchaseDate: Int64?
    package var expiresDate: Int64?
    package var quantity: Int?
    /// One of ``AppleProductType``'s raw values.
    package var type: String?
    package var appAccountToken: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    package var inAppOwnershipType: String?
    package var signedDate: Int64?
    /// 0: refunded for another reason, 1: refunded because of an issue in the app.
    package var revocationReason: Int?
    package var revocationDate: Int64?
    package var isUpgraded: Bool?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    package var offerType: Int?
    package var offerIdentifier: String?
    /// One of ``AppleEnvironment``'s raw values.
    package var environment: String?
    package var storefront: String?
    package var storefrontId: String?
    /// `PURCHASE` or `RENEWAL`.
    package var transactionReason: String?
    package var currency: String?
    /// Price in milliunits of `currency`.
    package var price: Int64?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT` or `ONE_TIME`.
    package var offerDiscountType: String?
    package var offerPeriod: String?
    package var appTransactionId: String?
    /// `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`: how a revoked transaction was revoked.
    package var revocationType: String?

    package init(
        transactionId: String? = nil, originalTransactionId: String? = nil, webOrderLineItemId: String? = nil,
        bundleId: String? = nil, productId: String? = nil, subscriptionGroupIdentifier: String? = nil,
        purchaseDate: Int64? = nil, originalPurchaseDate: Int64? = nil, expiresDate: Int64? = nil,
        quantity: Int? = nil, type: String? = nil, appAccountToken: String? = nil,
        inAppOwnershipType: String? = nil, signedDate: Int64? = nil, revocationReason: Int? = nil,
        revocationDate: Int64? = nil, isUpgraded: Bool? = nil, offerType: Int? = nil,
        offerIdentifier: String? = nil, environment: String? = nil, storefront: String? = nil,
        storefrontId: String? = nil, transactionReason: String? = nil, currency: String? = nil,
        price: Int64? = nil, offerDiscountType: String? = nil, offerPeriod: String? = nil,
        appTransactionId: String? = nil, revocationType: String? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.type = type
        self.appAccountToken = appAccountToken
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.revocationReason = revocationReason
        self.revocationDate = revocationDate
        self.isUpgraded = isUpgraded
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.environment = environment
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.transactionReason = transactionReason
        self.currency = currency
        self.price = price
        self.offerDiscountType = offerDiscountType
        self.offerPeriod = offerPeriod
        self.appTransactionId = appTransactionId
        self.revocationType = revocationType
    }
}
