import Foundation
import ShopkeeperStores

/// One notification the sandbox sent and how its delivery went, as kept in the notification log (``NotificationSnapshot``:
/// journaled, so a restart keeps it); shown under `GET /sandbox/notifications` as a ``NotificationDeliveryView``.
struct NotificationDelivery: Codable, Sendable, Equatable {
    /// Apple: the `notificationUUID`; Google: the Pub/Sub `messageId`; Stripe: the event id (`evt_...`).
    var id: String
    /// `apple`, `google` or `stripe`.
    var store: String
    /// Apple's `notificationType`; for Google the notification's name (`SUBSCRIPTION_RENEWED`,
    /// `ONE_TIME_PRODUCT_PURCHASED`, `VOIDED_PURCHASE`, `TEST`).
    var type: String
    /// Apple's `subtype`.
    var subtype: String?
    var transactionId: String?
    var originalTransactionId: String?
    var purchaseToken: String?
    /// Where it was sent.
    var url: String
    var createdAt: Date
    /// Delivery attempts so far (retries included; resends not).
    var attempts = 0
    /// Extra sends through `POST /sandbox/notifications/{id}/resend`.
    var resends = 0
    /// The receiver's last answer; 0: no answer.
    var lastStatus: Int?
    /// A receiver answered 2xx at least once.
    var delivered = false
    /// The exact JSON body POSTed: `{"signedPayload": ...}` or the Pub/Sub push envelope.
    var body: String
    /// Google: the `aud` of the push's OIDC token (a fresh token is signed for every attempt).
    var audience: String?
    /// Apple: the app and environment the notification is about, its `signedPayload` and its delivery attempts, for
    /// Get Notification History (not shown under `/sandbox/notifications`).
    var bundleId: String?
    var environment: String?
    var signedPayload: String?
    var sendAttempts: [AppStoreSendAttempt] = []
}

/// A ``NotificationDelivery`` as `GET /sandbox/notifications` shows it: without Apple's history fields (app,
/// environment, `signedPayload`, send attempts), with `notification_uuid` or `message_id`.
struct NotificationDeliveryView: Encodable, Sendable {
    let delivery: NotificationDelivery

    init(_ delivery: NotificationDelivery) {
        self.delivery = delivery
    }

    /// Apple's `notificationUUID` (the `id`), for Apple's notifications only.
    var notificationUUID: String? { delivery.store == "apple" ? delivery.id : nil }
    /// Pub/Sub's `messageId` (the `id`), for Google's notifications only.
    var messageId: String? { delivery.store == "google" ? delivery.id : nil }

    enum CodingKeys: String, CodingKey {
        case id, store, type, subtype, url, attempts, resends, delivered, body, audience
        case transactionId = "transaction_id"
        case originalTransactionId = "original_transaction_id"
        case purchaseToken = "purchase_token"
        case createdAt = "created_at"
        case lastStatus = "last_status"
        case notificationUUID = "notification_uuid"
        case messageId = "message_id"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(delivery.id, forKey: .id)
        try container.encode(delivery.store, forKey: .store)
        try container.encode(delivery.type, forKey: .type)
        try container.encodeIfPresent(delivery.subtype, forKey: .subtype)
        try container.encodeIfPresent(delivery.transactionId, forKey: .transactionId)
        try container.encodeIfPresent(delivery.originalTransactionId, forKey: .originalTransactionId)
        try container.encodeIfPresent(delivery.purchaseToken, forKey: .purchaseToken)
        try container.encode(delivery.url, forKey: .url)
        try container.encode(delivery.createdAt, forKey: .createdAt)
        try container.encode(delivery.attempts, forKey: .attempts)
        try container.encode(delivery.resends, forKey: .resends)
        try container.encodeIfPresent(delivery.lastStatus, forKey: .lastStatus)
        try container.encode(delivery.delivered, forKey: .delivered)
        try container.encode(delivery.body, forKey: .body)
        try container.encodeIfPresent(delivery.audience, forKey: .audience)
        try container.encodeIfPresent(notificationUUID, forKey: .notificationUUID)
        try container.encodeIfPresent(messageId, forKey: .messageId)
    }
}

/// Where notifications go (`GET`/`PUT /sandbox/notifications`).
struct NotificationTargets: Codable, Sendable, Equatable {
    var appleURL: String?
    var googleURL: String?
    /// The `aud` of Google push tokens (the Google URL unless set).
    var googleAudience: String?
    /// New notifications are logged but not delivered until released.
    var hold: Bool
    /// Where Stripe webhooks go.
    var stripeURL: String? = nil

    enum CodingKeys: String, CodingKey {
        case stripeURL = "stripe_url"
        case appleURL = "apple_url"
        case googleURL = "google_url"
        case googleAudience = "google_audience"
        case hold
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(appleURL, forKey: .appleURL)
        try container.encode(googleURL, forKey: .googleURL)
        try container.encode(googleAudience, forKey: .googleAudience)
        try container.encode(hold, forKey: .hold)
        try container.encode(stripeURL, forKey: .stripeURL)
    }
}

/// A change of targets: a field absent from the request is left alone, `null` removes it.
struct NotificationTargetsChange: Sendable {
    /// `.some(nil)`: stop sending to Apple.
    var appleURL: URL??
    var googleURL: URL??
    var googleAudience: String??
    var hold: Bool?
    var stripeURL: URL?? = nil
}
