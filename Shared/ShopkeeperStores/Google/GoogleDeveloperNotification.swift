import Foundation

/// What Cloud Pub/Sub POSTs to a push subscription's endpoint: one message (for Play, a
/// ``GoogleDeveloperNotification`` as base64 JSON in `data`) and the subscription it came through. Pub/Sub writes the
/// message id and publish time twice, in camelCase and snake_case.
package struct PubSubPushEnvelope: Codable, Sendable, Equatable {
    package var message: Message
    /// `projects/{project}/subscriptions/{subscription}`.
    package var subscription: String?
    /// How often Pub/Sub tried to deliver this message; only set when the subscription has a dead-letter policy.
    package var deliveryAttempt: Int?

    package init(message: Message, subscription: String? = nil, deliveryAttempt: Int? = nil) {
        self.message = message
        self.subscription = subscription
        self.deliveryAttempt = deliveryAttempt
    }

    /// The envelope of one Play notification, as Pub/Sub pushes it.
    package init(
        notification: GoogleDeveloperNotification, messageId: String, publishTime: String, subscription: String
    ) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        self.init(
            message: Message(
                data: try encoder.encode(notification).base64EncodedString(), messageId: messageId,
                publishTime: publishTime),
            subscription: subscription)
    }

    /// Google's `PubsubMessage` as pushed.
    package struct Message: Codable, Sendable, Equatable {
        /// Standard base64 of the payload (for Play, a ``GoogleDeveloperNotification`` as JSON).
        package var data: String?
        /// Unique within the topic; Pub/Sub delivers at least once and redelivers a message with the same id.
        package var messageId: String?
        /// The same id under its snake_case name, which Pub/Sub sends too.
        package var message_id: String?
        /// RFC 3339 time at which Pub/Sub received the publish.
        package var publishTime: String?
        /// The same time under its snake_case name.
        package var publish_time: String?
        /// Set by the publisher; Play sends none.
        package var attributes: [String: String]?
        package var orderingKey: String?

        package init(
            data: String?, messageId: String?, publishTime: String? = nil, attributes: [String: String]? = nil,
            orderingKey: String? = nil
        ) {
            self.data = data
            self.messageId = messageId
            self.message_id = messageId
            self.publishTime = publishTime
            self.publish_time = publishTime
            self.attributes = attributes
            self.orderingKey = orderingKey
        }

        /// The message id, under either name.
        package var id: String? { messageId ?? message_id }

        /// The decoded bytes of `data`; `nil` when absent or not base64.
        package var decodedData: Data? { data.flatMap { Data(base64Encoded: $0) } }

        /// `data` decoded as a Play developer notification; `nil` when it is not one.
        package var developerNotification: GoogleDeveloperNotification? {
            decodedData.flatMap { try? JSONDecoder().decode(GoogleDeveloperNotification.self, from: $0) }
        }
    }
}

/// A Google Play real-time developer notification (RTDN, Google's `DeveloperNotification`): only a signal that
/// something changed; the state is fetched from the Play Developer API. Exactly one of `subscriptionNotification`,
/// `oneTimeProductNotification`, `voidedPurchaseNotification` and `testNotification` is set.
package struct GoogleDeveloperNotification: Codable, Sendable, Equatable {
    /// The notification format's version, `1.0`.
    package var version: String?
    /// The app, e.g. `com.some.thing`.
    package var packageName: String
    /// UNIX milliseconds of the event, as a string, as Google writes it (`"1503349566168"`); a JSON number decodes too.
    package var eventTimeMillis: String?
    package var subscriptionNotification: SubscriptionNotification?
    package var oneTimeProductNotification: OneTimeProductNotification?
    package var voidedPurchaseNotification: VoidedPurchaseNotification?
    /// Sent by the Play Console's "Send test notification".
    package var testNotification: TestNotification?

    package init(
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

    enum CodingKeys: String, CodingKey {
        case version, packageName, eventTimeMillis, subscriptionNotification, oneTimeProductNotification
        case voidedPurchaseNotification, testNotification
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        packageName = try container.decode(String.self, forKey: .packageName)
        if let number = try? container.decodeIfPresent(Int64.self, forKey: .eventTimeMillis) {
            eventTimeMillis = String(number)
        } else {
            eventTimeMillis = try container.decodeIfPresent(String.self, forKey: .eventTimeMillis)
        }
        subscriptionNotification = try container.decodeIfPresent(
            SubscriptionNotification.self, forKey: .subscriptionNotification)
        oneTimeProductNotification = try container.decodeIfPresent(
            OneTimeProductNotification.self, forKey: .oneTimeProductNotification)
        voidedPurchaseNotification = try container.decodeIfPresent(
            VoidedPurchaseNotification.self, forKey: .voidedPurchaseNotification)
        testNotification = try container.decodeIfPresent(TestNotification.self, forKey: .testNotification)
    }

    /// Google's `SubscriptionNotification`.
    package struct SubscriptionNotification: Codable, Sendable, Equatable {
        /// `1.0`.
        package var version: String?
        /// ``GoogleSubscriptionNotificationType``'s raw value.
        package var notificationType: Int
        /// The subscription's purchase token (read its state with `purchases.subscriptionsv2.get`).
        package var purchaseToken: String
        /// The subscription's product id (Google still sends it, though it is deprecated).
        package var subscriptionId: String?

        package init(version: String? = "1.0", notificationType: Int, purchaseToken: String, subscriptionId: String?) {
            self.version = version
            self.notificationType = notificationType
            self.purchaseToken = purchaseToken
            self.subscriptionId = subscriptionId
        }

        /// The type, when it is one Google documents.
        package var type: GoogleSubscriptionNotificationType? {
            GoogleSubscriptionNotificationType(rawValue: notificationType)
        }
    }

    /// Google's `OneTimeProductNotification`.
    package struct OneTimeProductNotification: Codable, Sendable, Equatable {
        /// `1.0`.
        package var version: String?
        /// ``GoogleOneTimeProductNotificationType``'s raw value: 1 purchased, 2 canceled.
        package var notificationType: Int
        package var purchaseToken: String
        /// The one-time product's id.
        package var sku: String

        package init(version: String? = "1.0", notificationType: Int, purchaseToken: String, sku: String) {
            self.version = version
            self.notificationType = notificationType
            self.purchaseToken = purchaseToken
            self.sku = sku
        }

        /// The type, when it is one Google documents.
        package var type: GoogleOneTimeProductNotificationType? {
            GoogleOneTimeProductNotificationType(rawValue: notificationType)
        }
    }

    /// Google's `VoidedPurchaseNotification`: a purchase was refunded, charged back or revoked.
    package struct VoidedPurchaseNotification: Codable, Sendable, Equatable {
        package var purchaseToken: String
        /// The order that was voided (for a subscription, the order that was refunded).
        package var orderId: String?
        /// 1 subscription, 2 one-time product (``GoogleVoidedProductType``).
        package var productType: Int?
        /// 1 full refund, 2 quantity-based partial refund (``GoogleRefundType``).
        package var refundType: Int?

        package init(purchaseToken: String, orderId: String?, productType: Int?, refundType: Int?) {
            self.purchaseToken = purchaseToken
            self.orderId = orderId
            self.productType = productType
            self.refundType = refundType
        }
    }

    /// Google's `TestNotification`: no purchase, just a check that the topic is wired up.
    package struct TestNotification: Codable, Sendable, Equatable {
        /// `1.0`.
        package var version: String?

        package init(version: String? = "1.0") {
            self.version = version
        }
    }

    /// A short name of the kind of notification: `subscription.<type>`, `one_time.<type>`, `voided`, `test`.
    package var kind: String {
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

/// `SubscriptionNotification.notificationType`: Play's subscription notification types.
package enum GoogleSubscriptionNotificationType: Int, Codable, Sendable, CaseIterable {
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
    /// The customer restored a cancelled but unexpired subscription.
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
package enum GoogleOneTimeProductNotificationType: Int, Codable, Sendable, CaseIterable {
    /// A one-time product was bought (also once a pending purchase completes).
    case purchased = 1
    /// A pending one-time purchase was cancelled.
    case canceled = 2
}

/// `VoidedPurchaseNotification.productType`.
package enum GoogleVoidedProductType: Int, Codable, Sendable, CaseIterable {
    case subscription = 1
    case oneTime = 2
}

/// `VoidedPurchaseNotification.refundType`.
package enum GoogleRefundType: Int, Codable, Sendable, CaseIterable {
    case fullRefund = 1
    case quantityBasedPartialRefund = 2
}
