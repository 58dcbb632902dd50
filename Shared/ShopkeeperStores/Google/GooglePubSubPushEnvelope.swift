import Foundation

/// The JSON body Cloud Pub/Sub POSTs to a push subscription's endpoint: one message and the subscription it came
/// through. For Play's real-time developer notifications, `message.data` is the base64 of a
/// ``GoogleDeveloperNotification``. Pub/Sub writes the message id and publish time twice (camelCase and snake_case).
public struct GooglePubSubPushEnvelope: Codable, Sendable, Equatable {
    public var message: Message
    /// `projects/{project}/subscriptions/{subscription}`.
    public var subscription: String?
    /// How often Pub/Sub tried to deliver this message; only set when the subscription has a dead-letter policy.
    public var deliveryAttempt: Int?

    public init(message: Message, subscription: String?, deliveryAttempt: Int? = nil) {
        self.message = message
        self.subscription = subscription
        self.deliveryAttempt = deliveryAttempt
    }

    /// Google's `PubsubMessage` as pushed.
    public struct Message: Codable, Sendable, Equatable {
        /// Standard base64 of the message's bytes.
        public var data: String?
        /// Set by the publisher; Play sends none.
        public var attributes: [String: String]?
        /// Unique within the topic: the id to deduplicate by (Pub/Sub delivers at least once).
        public var messageId: String?
        /// The same id, as Pub/Sub also writes it.
        public var message_id: String?
        /// RFC 3339 time at which Pub/Sub received the publish.
        public var publishTime: String?
        /// The same time, as Pub/Sub also writes it.
        public var publish_time: String?
        public var orderingKey: String?

        public init(
            data: String?, attributes: [String: String]? = nil, messageId: String?, publishTime: String?,
            orderingKey: String? = nil
        ) {
            self.data = data
            self.attributes = attributes
            self.messageId = messageId
            self.message_id = messageId
            self.publishTime = publishTime
            self.publish_time = publishTime
            self.orderingKey = orderingKey
        }

        /// The message id, whichever spelling carried it.
        public var id: String? { messageId ?? message_id }

        /// The decoded bytes of `data`; `nil` when absent or not base64.
        public var decodedData: Data? { data.flatMap { Data(base64Encoded: $0) } }

        /// `data` decoded as a Play developer notification; `nil` when it is not one.
        public var developerNotification: GoogleDeveloperNotification? {
            decodedData.flatMap { try? JSONDecoder().decode(GoogleDeveloperNotification.self, from: $0) }
        }
    }

    /// The envelope of one Play notification, as Pub/Sub pushes it.
    public init(
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
}

/// The claims of the OIDC ID token Pub/Sub puts in `Authorization: Bearer` of an authenticated push, signed RS256 by
/// one of Google's keys (`https://www.googleapis.com/oauth2/v3/certs`).
public struct GooglePushTokenClaims: Codable, Sendable, Equatable {
    /// Google's issuers: `https://accounts.google.com` (or `accounts.google.com`).
    public static let issuers: Set<String> = ["https://accounts.google.com", "accounts.google.com"]

    /// `https://accounts.google.com`.
    public var iss: String
    /// The audience configured on the push subscription (by default its endpoint URL).
    public var aud: String
    /// The push service account's unique id.
    public var azp: String?
    /// The service account the push subscription authenticates as.
    public var email: String?
    public var email_verified: Bool?
    public var sub: String?
    /// UNIX seconds.
    public var iat: Int64
    /// UNIX seconds; Google's tokens live an hour.
    public var exp: Int64

    public init(
        iss: String = "https://accounts.google.com", aud: String, azp: String?, email: String?,
        emailVerified: Bool? = true, sub: String?, iat: Int64, exp: Int64
    ) {
        self.iss = iss
        self.aud = aud
        self.azp = azp
        self.email = email
        self.email_verified = emailVerified
        self.sub = sub
        self.iat = iat
        self.exp = exp
    }
}
