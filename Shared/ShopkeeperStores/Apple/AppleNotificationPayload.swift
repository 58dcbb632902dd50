import Foundation

/// An App Store Server Notification V2 as Apple signs it: the payload of the `signedPayload` JWS Apple POSTs to an
/// app's notification URL (Apple's `ResponseBodyV2DecodedPayload`). Types and subtypes are kept as strings, so a type
/// Apple adds later is still recorded; ``AppleNotificationType`` names those Apple documents.
public struct AppleNotificationPayload: AppleSignedPayload, Codable, Equatable {
    public var notificationType: String
    public var subtype: String?
    /// Unique per notification; Apple sends a retried notification with the same one.
    public var notificationUUID: String
    public var data: Data?
    /// For `RENEWAL_EXTENSION` with subtype `SUMMARY`.
    public var summary: Summary?
    public var version: String?
    /// UNIX milliseconds at which the App Store signed the notification.
    public var signedDate: Int64?

    /// The environment is inside `data` (or `summary`).
    public var environment: String? { data?.environment ?? summary?.environment }

    public init(
        notificationType: String, subtype: String? = nil, notificationUUID: String, data: Data? = nil,
        summary: Summary? = nil, version: String? = "2.0", signedDate: Int64? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.data = data
        self.summary = summary
        self.version = version
        self.signedDate = signedDate
    }

    /// The app and the signed transaction and renewal info a notification is about.
    public struct Data: Codable, Equatable, Sendable {
        public var appAppleId: Int64?
        public var bundleId: String?
        public var bundleVersion: String?
        /// One of ``AppleEnvironment``'s raw values.
        public var environment: String?
        /// A `JWSTransaction` (``AppleTransactionPayload``).
        public var signedTransactionInfo: String?
        /// A `JWSRenewalInfo` (``AppleRenewalInfoPayload``).
        public var signedRenewalInfo: String?
        /// The subscription's status (as in `GET /inApps/v1/subscriptions`): 1 active, 2 expired, 3 billing retry,
        /// 4 grace period, 5 revoked.
        public var status: Int?
        /// For `CONSUMPTION_REQUEST`: why the customer asked for a refund.
        public var consumptionRequestReason: String?

        public init(
            appAppleId: Int64? = nil, bundleId: String? = nil, bundleVersion: String? = nil, environment: String? = nil,
            signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil, status: Int? = nil,
            consumptionRequestReason: String? = nil
        ) {
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.bundleVersion = bundleVersion
            self.environment = environment
            self.signedTransactionInfo = signedTransactionInfo
            self.signedRenewalInfo = signedRenewalInfo
            self.status = status
            self.consumptionRequestReason = consumptionRequestReason
        }
    }

    /// The outcome of a mass subscription-renewal-date extension (`RENEWAL_EXTENSION`, `SUMMARY`).
    public struct Summary: Codable, Equatable, Sendable {
        public var requestIdentifier: String?
        public var environment: String?
        public var appAppleId: Int64?
        public var bundleId: String?
        public var productId: String?
        public var storefrontCountryCodes: [String]?
        public var succeededCount: Int64?
        public var failedCount: Int64?

        public init(
            requestIdentifier: String? = nil, environment: String? = nil, appAppleId: Int64? = nil,
            bundleId: String? = nil, productId: String? = nil, storefrontCountryCodes: [String]? = nil,
            succeededCount: Int64? = nil, failedCount: Int64? = nil
        ) {
            self.requestIdentifier = requestIdentifier
            self.environment = environment
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.productId = productId
            self.storefrontCountryCodes = storefrontCountryCodes
            self.succeededCount = succeededCount
            self.failedCount = failedCount
        }
    }
}

/// The notification types Apple documents for App Store Server Notifications V2.
public enum AppleNotificationType: String, Codable, Sendable, CaseIterable {
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    case didRenew = "DID_RENEW"
    case expired = "EXPIRED"
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    case metadataUpdate = "METADATA_UPDATE"
    case migration = "MIGRATION"
    case offerRedeemed = "OFFER_REDEEMED"
    case oneTimeCharge = "ONE_TIME_CHARGE"
    case priceChange = "PRICE_CHANGE"
    case priceIncrease = "PRICE_INCREASE"
    case refund = "REFUND"
    case refundDeclined = "REFUND_DECLINED"
    case refundReversed = "REFUND_REVERSED"
    case renewalExtended = "RENEWAL_EXTENDED"
    case renewalExtension = "RENEWAL_EXTENSION"
    case revoke = "REVOKE"
    case subscribed = "SUBSCRIBED"
    case test = "TEST"
}

/// The notification subtypes Apple documents.
public enum AppleNotificationSubtype: String, Codable, Sendable, CaseIterable {
    case accepted = "ACCEPTED"
    case activeTokenReminder = "ACTIVE_TOKEN_REMINDER"
    case autoRenewDisabled = "AUTO_RENEW_DISABLED"
    case autoRenewEnabled = "AUTO_RENEW_ENABLED"
    case billingRecovery = "BILLING_RECOVERY"
    case billingRetry = "BILLING_RETRY"
    case downgrade = "DOWNGRADE"
    case failure = "FAILURE"
    case gracePeriod = "GRACE_PERIOD"
    case initialBuy = "INITIAL_BUY"
    case pending = "PENDING"
    case priceIncrease = "PRICE_INCREASE"
    case productNotForSale = "PRODUCT_NOT_FOR_SALE"
    case resubscribe = "RESUBSCRIBE"
    case summary = "SUMMARY"
    case unreported = "UNREPORTED"
    case upgrade = "UPGRADE"
    case voluntary = "VOLUNTARY"
}
