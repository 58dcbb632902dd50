import Foundation

/// What Cloud Pub/Sub POSTs to a push endpoint: the message (Play's notification, base64 in `data`) and the
/// subscription it came through.
public struct PubSubPushEnvelope: Codable, Sendable, Equatable {
    public var message: Message
    public var subscription: String?

    public init(message: Message, subscription: String? = nil) {
        self.message = message
        self.subscription = subscription
    }

    public struct Message: Codable, Sendable, Equatable {
        /// Base64 of the payload (for Play, a ``GoogleDeveloperNotification`` as JSON).
        public var data: String?
        /// Unique per message; Pub/Sub redelivers a message with the same id.
        public var messageId: String?
        /// The same id under its snake-case name, which Pub/Sub sends too.
        public var message_id: String?
        public var publishTime: String?
        public var attributes: [String: String]?

        public init(data: String?, messageId: String?, publishTime: String? = nil, attributes: [String: String]? = nil)
        {
            self.data = data
            self.messageId = messageId
            self.message_id = messageId
            self.publishTime = publishTime
            self.attributes = attributes
        }

        /// The message id, under either name.
        public var id: String? { messageId ?? message_id }
    }
}

/// A Google Play real-time developer notification: only a signal that something changed; the state is fetched
/// from the Play Developer API. Exactly one of the notification fields is set.
public struct GoogleDeveloperNotification: Codable, Sendable, Equatable {
    public var version: String?
    public var packageName: String
    /// UNIX milliseconds, as a string.
    public var eventTimeMillis: String?
    public var subscriptionNotification: SubscriptionNotification?
    public var oneTimeProductNotification: OneTimeProductNotification?
    public var voidedPurchaseNotification: VoidedPurchaseNotification?
    public var testNotification: TestNotification?

    public init(
        version: String? = "1.0", packageName: String, eventTimeMillis: String?,
        subscriptionNotification: SubscriptionNotification? = nil,
        oneTimeProductNotification: OneTimeProductNotification? = nil,
        voidedPurchaseNotification: VoidedPurchaseNotification? = nil, testNotification: TestNotification? = nil
    ) {
        self.version = version
        self.packageName = packageName
        self.eventTimeMillis = eventTimeMillis
        self.subscriptionNotification = subscriptionNotification
        self.oneTimeProductNotification = oneTimeProductNotification
        self.voidedPurchaseNotification = voidedPurchaseNotification
        self.testNotification = testNotification
    }

    public struct SubscriptionNotification: Codable, Sendable, Equatable {
        public var version: String?
        /// ``GoogleSubscriptionNotificationType``'s raw value.
        public var notificationType: Int
        public var purchaseToken: String
        public var subscriptionId: String?

        public init(version: String? = "1.0", notificationType: Int, purchaseToken: String, subscriptionId: String?) {
            self.version = version
            self.notificationType = notificationType
            self.purchaseToken = purchaseToken
            self.subscriptionId = subscriptionId
        }
    }

    public struct OneTimeProductNotification: Codable, Sendable, Equatable {
        public var version: String?
        /// 1 purchased, 2 canceled.
        public var notificationType: Int
        public var purchaseToken: String
        public var sku: String

        public init(version: String? = "1.0", notificationType: Int, purchaseToken: String, sku: String) {
            self.version = version
            self.notificationType = notificationType
            self.purchaseToken = purchaseToken
            self.sku = sku
        }
    }

    public struct VoidedPurchaseNotification: Codable, Sendable, Equatable {
        public var purchaseToken: String
        public var orderId: String?
        /// 1 subscription, 2 one-time product.
        public var productType: Int?
        /// 1 full refund, 2 quantity-based partial refund.
        public var refundType: Int?

        public init(purchaseToken: String, orderId: String?, productType: Int?, refundType: Int?) {
            self.purchaseToken = purchaseToken
            self.orderId = orderId
            self.productType = productType
            self.refundType = refundType
        }
    }

    public struct TestNotification: Codable, Sendable, Equatable {
        public var version: String?

        public init(version: String? = "1.0") {
            self.version = version
        }
    }

    /// A short name of the kind of notification: `subscription.<type>`, `one_time.<type>`, `voided`, `test`.
    public var kind: String {
        if let subscription = subscriptionNotification {
            return "subscription."
                + (GoogleSubscriptionNotificationType(rawValue: subscription.notificationType).map { "\($0)" }
                    ?? String(subscription.notificationType))
        }
        if let oneTime = oneTimeProductNotification { return "one_time.\(oneTime.notificationType)" }
        if voidedPurchaseNotification != nil { return "voided" }
        return "test"
    }
}

/// Play's subscription notification types.
public enum GoogleSubscriptionNotificationType: Int, Codable, Sendable, CaseIterable {
    case recovered = 1
    case renewed = 2
    case canceled = 3
    case purchased = 4
    case onHold = 5
    case inGracePeriod = 6
    case restarted = 7
    case priceChangeConfirmed = 8
    case deferred = 9
    case paused = 10
    case pauseScheduleChanged = 11
    case revoked = 12
    case expired = 13
    case pendingPurchaseCanceled = 20
}
