/// The App Store Server API's support endpoints (Get Refund History, Get Notification History, Extend a Subscription
/// Renewal Date), with Apple's JSON field names. The sandbox store encodes the responses and decodes the requests; the
/// verifier's client does the opposite. Every field is optional, as in Apple's own library.

/// `GET /inApps/v2/refund/lookup/{transactionId}`: Apple's `RefundHistoryResponse`, one page (up to 20) of the
/// customer's refunded transactions, oldest refund first.
public struct AppStoreRefundHistoryResponse: Codable, Sendable, Equatable {
    /// Refunded transactions as JWS (payload ``AppleTransactionPayload``), ascending by `revocationDate`.
    public var signedTransactions: [String]?
    /// The token to send as the `revision` query parameter for the next page (or, kept, for refunds made later).
    public var revision: String?
    /// Whether another page follows.
    public var hasMore: Bool?

    public init(signedTransactions: [String]?, revision: String?, hasMore: Bool?) {
        self.signedTransactions = signedTransactions
        self.revision = revision
        self.hasMore = hasMore
    }
}

/// `POST /inApps/v1/notifications/history`: Apple's `NotificationHistoryRequest`. `startDate` and `endDate` (UNIX
/// milliseconds) are required; at most one of `notificationType` and `transactionId` narrows the request.
public struct AppStoreNotificationHistoryRequest: Codable, Sendable, Equatable {
    /// Within the past 180 days (production) or 30 days (sandbox); before `endDate`.
    public var startDate: Int64?
    /// A date in the future is taken as now.
    public var endDate: Int64?
    /// One of ``AppleNotificationType``'s raw values.
    public var notificationType: String?
    /// One of ``AppleNotificationSubtype``'s raw values; needs its `notificationType`.
    public var notificationSubtype: String?
    /// Any transaction of the customer whose notifications to list.
    public var transactionId: String?
    /// Only notifications that have not reached the app's server (including those Apple still retries).
    public var onlyFailures: Bool?

    public init(
        startDate: Int64?, endDate: Int64?, notificationType: String? = nil, notificationSubtype: String? = nil,
        transactionId: String? = nil, onlyFailures: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }
}

/// The answer to ``AppStoreNotificationHistoryRequest``: Apple's `NotificationHistoryResponse`, up to 20 records.
public struct AppStoreNotificationHistoryResponse: Codable, Sendable, Equatable {
    /// Send it back as the `paginationToken` query parameter, with the same body, for the next page.
    public var paginationToken: String?
    public var hasMore: Bool?
    public var notificationHistory: [AppStoreNotificationHistoryItem]?

    public init(paginationToken: String?, hasMore: Bool?, notificationHistory: [AppStoreNotificationHistoryItem]?) {
        self.paginationToken = paginationToken
        self.hasMore = hasMore
        self.notificationHistory = notificationHistory
    }
}

/// One notification Apple sent or tried to send (Apple's `NotificationHistoryResponseItem`).
public struct AppStoreNotificationHistoryItem: Codable, Sendable, Equatable {
    /// The notification's `signedPayload`, exactly as it was (or would have been) POSTed.
    public var signedPayload: String?
    /// Up to six delivery attempts.
    public var sendAttempts: [AppStoreSendAttempt]?

    public init(signedPayload: String?, sendAttempts: [AppStoreSendAttempt]?) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}

/// One delivery attempt of a notification (Apple's `SendAttemptItem`).
public struct AppStoreSendAttempt: Codable, Sendable, Equatable {
    /// UNIX milliseconds.
    public var attemptDate: Int64?
    /// `SUCCESS`, `TIMED_OUT`, `NO_RESPONSE`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, ... (Apple's `SendAttemptResult`).
    public var sendAttemptResult: String?

    public init(attemptDate: Int64?, sendAttemptResult: String?) {
        self.attemptDate = attemptDate
        self.sendAttemptResult = sendAttemptResult
    }
}

/// `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`: Apple's `ExtendRenewalDateRequest`.
public struct AppStoreExtendRenewalDateRequest: Codable, Sendable, Equatable {
    /// 1 to 90.
    public var extendByDays: Int?
    /// 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage (Apple's `ExtendReasonCode`).
    public var extendReasonCode: Int?
    /// A UUID naming this request (at most 128 characters).
    public var requestIdentifier: String?

    public init(extendByDays: Int?, extendReasonCode: Int?, requestIdentifier: String?) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
    }
}

/// The answer to ``AppStoreExtendRenewalDateRequest``: Apple's `ExtendRenewalDateResponse`.
public struct AppStoreExtendRenewalDateResponse: Codable, Sendable, Equatable {
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var success: Bool?
    /// UNIX milliseconds: the subscription's new expiry.
    public var effectiveDate: Int64?

    public init(originalTransactionId: String?, webOrderLineItemId: String?, success: Bool?, effectiveDate: Int64?) {
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.success = success
        self.effectiveDate = effectiveDate
    }
}
