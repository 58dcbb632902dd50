/// A subscription as the Play Developer API returns it (`purchases.subscriptionsv2.get`, Google's
/// `SubscriptionPurchaseV2`), with Google's JSON field names. Times are RFC 3339 strings.
package struct GoogleSubscriptionPurchaseV2: Codable, Sendable, Equatable {
    /// The `kind` Google sends.
    package static let kindValue = "androidpublisher#subscriptionPurchaseV2"

    package var kind: String?
    package var regionCode: String?
    /// When the subscription was granted (RFC 3339, e.g. `2025-01-31T12:00:00.123Z`).
    package var startTime: String?
    /// One of ``GoogleSubscriptionState``'s raw values.
    package var subscriptionState: String?
    package var latestOrderId: String?
    package var linkedPurchaseToken: String?
    /// One of ``GoogleAcknowledgementState``'s raw values (a string here, unlike ``GoogleProductPurchase``).
    package var acknowledgementState: String?
    package var lineItems: [GoogleSubscriptionLineItem]?
    /// Present (an empty object) only for license-testing purchases.
    package var testPurchase: GoogleTestPurchase?
    package var externalAccountIdentifiers: GoogleExternalAccountIdentifiers?

    package init(
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
package struct GoogleSubscriptionLineItem: Codable, Sendable, Equatable {
    package var productId: String?
    /// RFC 3339.
    package var expiryTime: String?
    /// Present for auto-renewing plans.
    package var autoRenewingPlan: GoogleAutoRenewingPlan?
    package var offerDetails: GoogleOfferDetails?
    package var latestSuccessfulOrderId: String?

    package init(
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
package struct GoogleAutoRenewingPlan: Codable, Sendable, Equatable {
    /// Whether the subscription renews at `expiryTime` (false once the user cancelled).
    package var autoRenewEnabled: Bool?

    package init(autoRenewEnabled: Bool?) {
        self.autoRenewEnabled = autoRenewEnabled
    }
}

/// Google's `OfferDetails`: which base plan and offer the line item was bought with.
package struct GoogleOfferDetails: Codable, Sendable, Equatable {
    package var basePlanId: String?
    package var offerId: String?
    package var offerTags: [String]?

    package init(basePlanId: String?, offerId: String? = nil, offerTags: [String]? = nil) {
        self.basePlanId = basePlanId
        self.offerId = offerId
        self.offerTags = offerTags
    }
}

/// Google's `TestPurchase`: an empty object whose presence marks a license-testing purchase.
package struct GoogleTestPurchase: Codable, Sendable, Equatable {
    package init() {}
}

/// Google's `ExternalAccountIdentifiers`.
package struct GoogleExternalAccountIdentifiers: Codable, Sendable, Equatable {
    package var externalAccountId: String?
    /// The app's own (obfuscated) account id, set with `setObfuscatedAccountId` when buying.
    package var obfuscatedExternalAccountId: String?
    package var obfuscatedExternalProfileId: String?

    package init(
        externalAccountId: String? = nil, obfuscatedExternalAccountId: String?,
        obfuscatedExternalProfileId: String? = nil
    ) {
        self.externalAccountId = externalAccountId
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.obfuscatedExternalProfileId = obfuscatedExternalProfileId
    }
}

/// `SubscriptionPurchaseV2.subscriptionState`.
package enum GoogleSubscriptionState: String, Codable, Sendable, CaseIterable {
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
package enum GoogleAcknowledgementState: String, Codable, Sendable {
    case unspecified = "ACKNOWLEDGEMENT_STATE_UNSPECIFIED"
    case pending = "ACKNOWLEDGEMENT_STATE_PENDING"
    case acknowledged = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
}
