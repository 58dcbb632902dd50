/// A subscription as the Play Developer API returns it (`purchases.subscriptionsv2.get`, Google's
/// `SubscriptionPurchaseV2`), with Google's JSON field names. Times are RFC 3339 strings.
public struct GoogleSubscriptionPurchaseV2: Codable, Sendable, Equatable {
    /// The `kind` Google sends.
    public static let kindValue = "androidpublisher#subscriptionPurchaseV2"

    public var kind: String?
    public var regionCode: String?
    /// When the subscription was granted (RFC 3339, e.g. `2025-01-31T12:00:00.123Z`).
    public var startTime: String?
    /// One of ``GoogleSubscriptionState``'s raw values.
    public var subscriptionState: String?
    public var latestOrderId: String?
    public var linkedPurchaseToken: String?
    /// One of ``GoogleAcknowledgementState``'s raw values (a string here, unlike ``GoogleProductPurchase``).
    public var acknowledgementState: String?
    public var lineItems: [GoogleSubscriptionLineItem]?
    /// Present (an empty object) only for license-testing purchases.
    public var testPurchase: GoogleTestPurchase?
    public var externalAccountIdentifiers: GoogleExternalAccountIdentifiers?

    public init(
        kind: String? = kindValue, regionCode: String? = nil, startTime: String? = nil,
        subscriptionState: String? = nil, latestOrderId: String? = nil, linkedPurchaseToken: String? = nil,
        acknowledgementState: String? = nil, lineItems: [GoogleSubscriptionLineItem]? = nil,
        testPurchase: GoogleTestPurchase? = nil, externalAccountIdentifiers: GoogleExternalAccountIdentifiers? = nil
    ) {
        self.kind = kind
        self.regionCode = regionCode
        self.startTime = startTime
        self.subscriptionState = subscriptionState
        self.latestOrderId = latestOrderId
        self.linkedPurchaseToken = linkedPurchaseToken
        self.acknowledgementState = acknowledgementState
        self.lineItems = lineItems
        self.testPurchase = testPurchase
        self.externalAccountIdentifiers = externalAccountIdentifiers
    }
}

/// One subscribed product of a ``GoogleSubscriptionPurchaseV2`` (Google's `SubscriptionPurchaseLineItem`).
public struct GoogleSubscriptionLineItem: Codable, Sendable, Equatable {
    public var productId: String?
    /// RFC 3339.
    public var expiryTime: String?
    /// Present for auto-renewing plans.
    public var autoRenewingPlan: GoogleAutoRenewingPlan?
    public var offerDetails: GoogleOfferDetails?
    public var latestSuccessfulOrderId: String?

    public init(
        productId: String?, expiryTime: String?, autoRenewingPlan: GoogleAutoRenewingPlan?,
        offerDetails: GoogleOfferDetails?, latestSuccessfulOrderId: String? = nil
    ) {
        self.productId = productId
        self.expiryTime = expiryTime
        self.autoRenewingPlan = autoRenewingPlan
        self.offerDetails = offerDetails
        self.latestSuccessfulOrderId = latestSuccessfulOrderId
    }
}

/// Google's `AutoRenewingPlan`.
public struct GoogleAutoRenewingPlan: Codable, Sendable, Equatable {
    /// Whether the subscription renews at `expiryTime` (false once the user cancelled).
    public var autoRenewEnabled: Bool?

    public init(autoRenewEnabled: Bool?) {
        self.autoRenewEnabled = autoRenewEnabled
    }
}

/// Google's `OfferDetails`: which base plan and offer the line item was bought with.
public struct GoogleOfferDetails: Codable, Sendable, Equatable {
    public var basePlanId: String?
    public var offerId: String?
    public var offerTags: [String]?

    public init(basePlanId: String?, offerId: String? = nil, offerTags: [String]? = nil) {
        self.basePlanId = basePlanId
        self.offerId = offerId
        self.offerTags = offerTags
    }
}

/// Google's `TestPurchase`: an empty object whose presence marks a license-testing purchase.
public struct GoogleTestPurchase: Codable, Sendable, Equatable {
    public init() {}
}

/// Google's `ExternalAccountIdentifiers`.
public struct GoogleExternalAccountIdentifiers: Codable, Sendable, Equatable {
    public var externalAccountId: String?
    /// The app's own (obfuscated) account id, set with `setObfuscatedAccountId` when buying.
    public var obfuscatedExternalAccountId: String?
    public var obfuscatedExternalProfileId: String?

    public init(
        externalAccountId: String? = nil, obfuscatedExternalAccountId: String?,
        obfuscatedExternalProfileId: String? = nil
    ) {
        self.externalAccountId = externalAccountId
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.obfuscatedExternalProfileId = obfuscatedExternalProfileId
    }
}

/// `SubscriptionPurchaseV2.subscriptionState`.
public enum GoogleSubscriptionState: String, Codable, Sendable, CaseIterable {
    case unspecified = "SUBSCRIPTION_STATE_UNSPECIFIED"
    case pending = "SUBSCRIPTION_STATE_PENDING"
    case active = "SUBSCRIPTION_STATE_ACTIVE"
    case paused = "SUBSCRIPTION_STATE_PAUSED"
    case inGracePeriod = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
    case onHold = "SUBSCRIPTION_STATE_ON_HOLD"
    /// Cancelled by the user but still paid up until `expiryTime`.
    case canceled = "SUBSCRIPTION_STATE_CANCELED"
    case expired = "SUBSCRIPTION_STATE_EXPIRED"
    case pendingPurchaseCanceled = "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
}

/// `SubscriptionPurchaseV2.acknowledgementState`.
public enum GoogleAcknowledgementState: String, Codable, Sendable {
    case unspecified = "ACKNOWLEDGEMENT_STATE_UNSPECIFIED"
    case pending = "ACKNOWLEDGEMENT_STATE_PENDING"
    case acknowledged = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
}
