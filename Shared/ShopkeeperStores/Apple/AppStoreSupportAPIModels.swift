/// The App Store Server API's support endpoints (Get Refund History, Get Notification History, Extend a Subscription
/// Renewal Date), with Apple's JSON field names. The sandbox store encodes the responses and decodes the requests; the
/// verifier's client does the opposite. Every field is optional, as in Apple's own library.

/// `GET /inApps/v2/refund/lookup/{transactionId}`: Apple's `RefundHistoryResponse`, one page (up to 20) of the
/// customer's refunded transactions, oldest refund first.
package struct AppStoreRefundHistoryResponse: Codable, Sendable, Equatable {
    /// Refunded transactions as JWS (payload ``AppleTransactionPayload``), ascending by `revocationDate`.
    package var signedTransactions: [String]?
    /// The token to send as the `revision` query parameter for the next page (or, kept, for refunds made later).
    package var revision: String?
    /// Whether another page follows.
    package var hasMore: Bool?

    package init(signedTransactions: [String]?, revision: String?, hasMore: Bool?) {
        self.signedTransactions = signedTransactions
        self.revision = revision
        self.hasMore = hasMore
    }
}

/// `POST /inApps/v1/notifications/history`: Apple's `NotificationHistoryRequest`. `startDate` and `endDate` (UNIX
/// milliseconds) are required; at most one of `notificationType` and `transactionId` narrows the request.
package struct AppStoreNotificationHistoryRequest: Codable, Sendable, Equatable {
    /// Within the past 180 days (production) or 30 days (sandbox); before `endDate`.
    package var startDate: Int64?
    /// A date in the future is taken as now.
    package var endDate: Int64?
    /// One of ``AppleNotificationType``'s raw values.
    package var notificationType: String?
    /// One of ``AppleNotificationSubtype``'s raw values; needs its `notificationType`.
    package var notificationSubtype: String?
    /// Any transaction of the customer whose notifications to list.
    package var transactionId: String?
    /// Only notifications that have not reached the app's server (including those Apple still retries).
    package var onlyFailures: Bool?

    package init(
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
package struct AppStoreNotificationHistoryResponse: Codable, Sendable, Equatable {
    /// Send it back as the `paginationToken` query parameter, with the same body, for the next page.
    package var paginationToken: String?
    package var hasMore: Bool?
    package var notificationHistory: [AppStoreNotificationHistoryItem]?

    package init(paginationToken: String?, hasMore: Bool?, notificationHistory: [AppStoreNotificationHistoryItem]?) {
        self.paginationToken = paginationToken
        self.hasMore = hasMore
        self.notificationHistory = notificationHistory
    }
}

/// One notification Apple sent or tried to send (Apple's `NotificationHistoryResponseItem`).
package struct AppStoreNotificationHistoryItem: Codable, Sendable, Equatable {
    /// The notification's `signedPayload`, exactly as it was (or would have been) POSTed.
    package var signedPayload: String?
    /// Up to six delivery attempts.
    package var sendAttempts: [AppStoreSendAttempt]?

    package init(signedPayload: String?, sendAttempts: [AppStoreSendAttempt]?) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}

/// One delivery attempt of a notification (Apple's `SendAttemptItem`).
package struct AppStoreSendAttempt: Codable, Sendable, Equatable {
    /// UNIX milliseconds.
    package var attemptDate: Int64?
    /// `SUCCESS`, `TIMED_OUT`, `NO_RESPONSE`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, ... (Apple's `SendAttemptResult`).
    package var sendAttemptResult: String?

    package init(attemptDate: Int64?, sendAttemptResult: String?) {
        self.attemptDate = attemptDate
        self.sendAttemptResult = sendAttemptResult
    }
}

/// `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`: Apple's `ExtendRenewalDateRequest`.
package struct AppStoreExtendRenewalDateRequest: Codable, Sendable, Equatable {
    /// 1 to 90.
    package var extendByDays: Int?
    /// 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage (Apple's `ExtendReasonCode`).
    package var extendReasonCode: Int?
    /// A UUID naming this request (at most 128 characters).
    package var requestIdentifier: String?

    package init(extendByDays: Int?, extendReasonCode: Int?, requestIdentifier: String?) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
    }
}

/// The answer to ``AppStoreExtendRenewalDateRequest``: Apple's `ExtendRenewalDateResponse`.
package struct AppStoreExtendRenewalDateResponse: Codable, Sendable, Equatable {
    package var originalTransactionId: String?
    package var webOrderLineItemId: String?
    package var success: Bool?
    /// UNIX milliseconds: the subscription's new expiry.
    package var effectiveDate: Int64?

    package init(originalTransactionId: String?, webOrderLineItemId: String?, success: Bool?, effectiveDate: Int64?) {
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.success = success
        self.effectiveDate = effectiveDate
    }
}
