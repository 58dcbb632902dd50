/// Subscription renewal information as Apple signs it: the payload of a `signedRenewalInfo` JWS
/// (Apple's `JWSRenewalInfoDecodedPayload`). Dates are UNIX milliseconds.
package struct AppleRenewalInfoPayload: AppleSignedPayload, Codable, Equatable {
    package var originalTransactionId: String?
    package var productId: String?
    package var autoRenewProductId: String?
    /// 1: renews, 0: the customer turned renewal off.
    package var autoRenewStatus: Int?
    package var isInBillingRetryPeriod: Bool?
    /// 1 cancelled, 2 billing error, 3 price increase declined, 4 product unavailable, 5 other.
    package var expirationIntent: Int?
    package var gracePeriodExpiresDate: Int64?
    package var offerType: Int?
    package var offerIdentifier: String?
    package var signedDate: Int64?
    package var environment: String?
    package var recentSubscriptionStartDate: Int64?
    package var renewalDate: Int64?
    package var currency: String?
    package var renewalPrice: Int64?
    package var appAccountToken: String?
    package var appTransactionId: String?

    package init(
        originalTransactionId: String? = nil, productId: String? = nil, autoRenewProductId: String? = nil,
        autoRenewStatus: Int? = nil, isInBillingRetryPeriod: Bool? = nil, expirationIntent: Int? = nil,
        gracePeriodExpiresDate: Int64? = nil, offerType: Int? = nil, offerIdentifier: String? = nil,
        signedDate: Int64? = nil, environment: String? = nil, recentSubscriptionStartDate: Int64? = nil,
        renewalDate: Int64? = nil, currency: String? = nil, renewalPrice: Int64? = nil,
        appAccountToken: String? = nil, appTransactionId: String? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.expirationIntent = expirationIntent
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.signedDate = signedDate
        self.environment = environment
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalDate = renewalDate
        self.currency = currency
        self.renewalPrice = renewalPrice
        self.appAccountToken = appAccountToken
        self.appTransactionId = appTransactionId
    }
}
