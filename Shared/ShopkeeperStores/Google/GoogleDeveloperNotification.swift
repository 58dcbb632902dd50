import Foundation

/// A Google Play real-time developer notification (RTDN, Google's `DeveloperNotification`): the JSON Play publishes
/// to the app's Cloud Pub/Sub topic, base64 in ``GooglePubSubPushEnvelope/Message/data``. It carries exactly one of
/// `subscriptionNotification`, `oneTimeProductNotification`, `voidedPurchaseNotification` and `testNotification`.
/// A notification is only a signal: the purchase's state is read from the Play Developer API.
public struct GoogleDeveloperNotification: Codable, Sendable, Equatable {
    /// The notification format's version, `1.0`.
    public var version: String?
    /// The app, e.g. `com.some.thing`.
    public var packageName: String?
    /// UNIX milliseconds of the event. Google's messages carry it as a JSON string (`"1503349566168"`), as it writes
    /// every 64-bit number; a JSON number decodes too.
    public var eventTimeMillis: Int64?
    public var subscriptionNotification: Subscription?
    public var oneTimeProductNotification: OneTimeProduct?
    public var voidedPurchaseNotification: VoidedPurchase?
    /// Sent by the Play Console's "Send test notification".
    public var testNotification: Test?

    public init(
        version: String? = "1.0", packageName: String?, eventTimeMillis: Int64?,
        subscriptionNotification: Subscription? = nil, oneTimeProductNotification: OneTimeProduct? = nil,
        voidedPurchaseNotification: VoidedPurchase? = nil, testNotification: Test? = nil
    ) {
        self.version = version
        self.packageName = packageName
        self.eventTimeMillis = eventTimeMillis
        self.subscriptionNotification = subscriptionNotification
        self.oneTimeProductNotification = oneTimeProductNotification
        self.voidedPurchaseNotification = voidedPurchaseNotification
        self.testNotification = testNotification
    }

    enum CodingKeys: String, CodingKey {
        case version, packageName, eventTimeMillis, subscriptionNotification, oneTimeProductNotification
        case voidedPurchaseNotification, testNotification
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        packageName = try container.decodeIfPresent(String.self, forKey: .packageName)
        if let number = try? container.decodeIfPresent(Int64.self, forKey: .eventTimeMillis) {
            eventTimeMillis = number
        } else {
            eventTimeMillis = try container.decodeIfPresent(String.self, forKey: .eventTimeMillis).flatMap {
                Int64($0)
            }
        }
        subscriptionNotification = try container.decodeIfPresent(Subscription.self, forKey: .subscriptionNotification)
        oneTimeProductNotification = try container.decodeIfPresent(
            OneTimeProduct.self, forKey: .oneTimeProductNotification)
        voidedPurchaseNotification = try container.decodeIfPresent(
            VoidedPurchase.self, forKey: .voidedPurchaseNotification)
        testNotification = try container.decodeIfPresent(Test.self, forKey: .testNotification)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(version, forKey: .version)
        try container.encodeIfPresent(packageName, forKey: .packageName)
        try container.encodeIfPresent(eventTimeMillis.map { String($0) }, forKey: .eventTimeMillis)
        try container.encodeIfPresent(subscriptionNotification, forKey: .subscriptionNotification)
        try container.encodeIfPresent(oneTimeProductNotification, forKey: .oneTimeProductNotification)
        try container.encodeIfPresent(voidedPurchaseNotification, forKey: .voidedPurchaseNotification)
        try container.encodeIfPresent(testNotification, forKey: .testNotification)
    }

    /// Google's `SubscriptionNotification`.
    public struct Subscription: Codable, Sendable, Equatable {
        /// `1.0`.
        public var version: String?
        /// One of ``GoogleSubscriptionNotificationType``'s raw values.
        public var notificationType: Int
        /// The subscription's purchase token (read its state with `purchases.subscriptionsv2.get`).
        public var purchaseToken: String
        /// The subscription's product id (Google still sends it, though it is deprecated).
        public var subscriptionId: String?

        public init(version: String? = "1.0", notificationType: Int, purchaseToken: String, subscriptionId: String?) {
            self.version = version
            self.notificationType = notificationType
            self.purchaseToken = purchaseToken
            self.subscriptionId = subscriptionId
        }

        /// The type, when it is one Google documents.
        public var type: GoogleSubscriptionNotificationType? {
            GoogleSubscriptionNotificationType(rawValue: notificationType)
        }
    }

    /// Google's `OneTimeProductNotification`.
    public struct OneTimeProduct: Codable, Sendable, Equatable {
        /// `1.0`.
        public var version: String?
        /// One of ``GoogleOneTimeProductNotificationType``'s raw values.
        public var notificationType: Int
        public var purchaseToken: String
        /// The one-time product's id.
        public var sku: String?

        public init(version: String? = "1.0", notificationType: Int, purchaseToken: String, sku: String?) {
            self.version = version
            self.notificationType = notificationType
            self.purchaseToken = purchaseToken
            self.sku = sku
        }

        /// The type, when it is one Google documents.
        public var type: GoogleOneTimeProductNotificationType? {
            GoogleOneTimeProductNotificationType(rawValue: notificationType)
        }
    }

    /// Google's `VoidedPurchaseNotification`: a purchase was refunded, charged back or revoked.
    public struct VoidedPurchase: Codable, Sendable, Equatable {
        public var purchaseToken: String
        /// The order that was voided (for a subscription, the renewal order that was refunded).
        public var orderId: String?
        /// 1: subscription, 2: one-time product (``GoogleVoidedProductType``).
        public var productType: Int?
        /// 1: full refund, 2: quantity-based partial refund (``GoogleRefundType``).
        public var refundType: Int?

        public init(purchaseToken: String, orderId: String?, productType: Int?, refundType: Int?) {
            self.purchaseToken = purchaseToken
            self.orderId = orderId
            self.productType = productType
            self.refundType = refundType
        }
    }

    /// Google's `TestNotification`: no purchase, just a check that the topic is wired up.
    public struct Test: Codable, Sendable, Equatable {
        /// `1.0`.
        public var version: String?

        public init(version: String? = "1.0") {
            self.version = version
        }
    }
}

/// `SubscriptionNotification.notificationType`.
public enum GoogleSubscriptionNotificationType: Int, Codable, Sendable, CaseIterable {
    /// Recovered from account hold, or resumed from a pause.
    case recovered = 1
    /// An active subscription renewed.
    case renewed = 2
    /// Cancelled, voluntarily or not (auto-renew off: paid up until `expiryTime`).
    case canceled = 3
    /// A new subscription was bought.
    case purchased = 4
    /// Entered account hold (no access).
    case onHold = 5
    /// Entered the grace period (access continues).
    case inGracePeriod = 6
    /// The customer restored a cancelled but unexpired subscription (Play > Account > Subscriptions).
    case restarted = 7
    /// Deprecated: a price change was confirmed.
    case priceChangeConfirmed = 8
    /// The renewal time was extended (deferred).
    case deferred = 9
    case paused = 10
    case pauseScheduleChanged = 11
    /// Revoked before its expiry (e.g. refunded and revoked).
    case revoked = 12
    case expired = 13
    /// Items of the subscription changed (add-ons).
    case itemsChanged = 17
    /// Cancellation was scheduled (installment plans).
    case cancellationScheduled = 18
    case priceChangeUpdated = 19
    /// A pending purchase was cancelled before it completed.
    case pendingPurchaseCanceled = 20
    case priceStepUpConsentUpdated = 22
}

/// `OneTimeProductNotification.notificationType`.
public enum GoogleOneTimeProductNotificationType: Int, Codable, Sendable, CaseIterable {
    /// A one-time product was bought (also once a pending purchase completes).
    case purchased = 1
    /// A pending one-time purchase was cancelled.
    case canceled = 2
}

/// `VoidedPurchaseNotification.productType`.
public enum GoogleVoidedProductType: Int, Codable, Sendable, CaseIterable {
    case subscription = 1
    case oneTime = 2
}

/// `VoidedPurchaseNotification.refundType`.
public enum GoogleRefundType: Int, Codable, Sendable, CaseIterable {
    case fullRefund = 1
    case quantityBasedPartialRefund = 2
}
