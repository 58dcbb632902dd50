/// Subscription renewal information as Apple signs it: the payload of a `signedRenewalInfo` JWS
/// (Apple's `JWSRenewalInfoDecodedPayload`). Dates are UNIX milliseconds.
public struct AppleRenewalInfoPayload: AppleSignedPayload, Codable, Equatable {
    public var originalTransactionId: String?
    public var productId: String?
    public var autoRenewProductId: String?
    /// 1: renews, 0: the customer turned renewal off.
    public var autoRenewStatus: Int?
    public var isInBillingRetryPeriod: Bool?
    /// 1 cancelled, 2 billing error, 3 price increase declined, 4 product unavailable, 5 other.
    public var expirationIntent: Int?
    public var gracePeriodExpiresDate: Int64?
    public var offerType: Int?
    public var offerIdentifier: String?
    public var signedDate: Int64?
    public var environment: String?
    public var recentSubscriptionStartDate: Int64?
    public var renewalDate: Int64?
    public var currency: String?
    public var renewalPrice: Int64?
    public var appAccountToken: String?
    public var appTransactionId: String?

    public init(
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
