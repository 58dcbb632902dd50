/// The App Store Server API's response bodies, with Apple's JSON field names. The sandbox store
/// encodes them; the verifier's client decodes them. Every field is optional, as in Apple's own
/// library, so that a field Apple adds or drops never breaks decoding.

/// `GET /inApps/v1/transactions/{transactionId}`: Apple's `TransactionInfoResponse`.
package struct AppStoreTransactionInfoResponse: Codable, Sendable, Equatable {
    /// The transaction, as a JWS whose payload is an ``AppleTransactionPayload``.
    package var signedTransactionInfo: String?

    package init(signedTransactionInfo: String?) {
        self.signedTransactionInfo = signedTransactionInfo
    }
}

/// `GET /inApps/v2/history/{transactionId}`: Apple's `HistoryResponse`, one page of a customer's
/// transactions for one app.
package struct AppStoreHistoryResponse: Codable, Sendable, Equatable {
    /// The token to send as the `revision` query parameter for the next page.
    package var revision: String?
    /// Whether another page follows.
    package var hasMore: Bool?
    package var bundleId: String?
    /// The app's Apple id (absent in the sandbox environment).
    package var appAppleId: Int64?
    /// One of ``AppleEnvironment``'s raw values.
    package var environment: String?
    /// Transactions as JWS (payload ``AppleTransactionPayload``).
    package var signedTransactions: [String]?

    package init(
        revision: String?, hasMore: Bool?, bundleId: String?, appAppleId: Int64?, environment: String?,
        signedTransactions: [String]?
    ) {
        self.revision = revision
        self.hasMore = hasMore
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.signedTransactions = signedTransactions
    }
}

/// `GET /inApps/v1/subscriptions/{transactionId}`: Apple's `StatusResponse`, the status of every
/// auto-renewable subscription of a customer in one app, grouped by subscription group.
package struct AppStoreStatusResponse: Codable, Sendable, Equatable {
    /// One of ``AppleEnvironment``'s raw values.
    package var environment: String?
    package var bundleId: String?
    package var appAppleId: Int64?
    package var data: [AppStoreSubscriptionGroupItem]?

    package init(environment: String?, bundleId: String?, appAppleId: Int64?, data: [AppStoreSubscriptionGroupItem]?) {
        self.environment = environment
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.data = data
    }
}

/// One subscription group of a ``AppStoreStatusResponse`` (Apple's `SubscriptionGroupIdentifierItem`).
package struct AppStoreSubscriptionGroupItem: Codable, Sendable, Equatable {
    package var subscriptionGroupIdentifier: String?
    /// The latest transaction of each original transaction in the group.
    package var lastTransactions: [AppStoreLastTransactionsItem]?

    package init(subscriptionGroupIdentifier: String?, lastTransactions: [AppStoreLastTransactionsItem]?) {
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.lastTransactions = lastTransactions
    }
}

/// The latest signed transaction and renewal info of one subscription (Apple's `LastTransactionsItem`).
package struct AppStoreLastTransactionsItem: Codable, Sendable, Equatable {
    /// One of ``AppStoreSubscriptionStatus``'s raw values.
    package var status: Int?
    package var originalTransactionId: String?
    /// JWS, payload ``AppleTransactionPayload``.
    package var signedTransactionInfo: String?
    /// JWS, payload ``AppleRenewalInfoPayload``.
    package var signedRenewalInfo: String?

    package init(
        status: Int?, originalTransactionId: String?, signedTransactionInfo: String?, signedRenewalInfo: String?
    ) {
        self.status = status
        self.originalTransactionId = originalTransactionId
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
    }
}

/// Apple's auto-renewable subscription status numbers.
package enum AppStoreSubscriptionStatus: Int, Codable, Sendable, CaseIterable {
    case active = 1
    case expired = 2
    case billingRetry = 3
    case billingGracePeriod = 4
    case revoked = 5
}

/// `GET /inApps/v1/lookup/{orderId}`: Apple's `OrderLookupResponse`.
package struct AppStoreOrderLookupResponse: Codable, Sendable, Equatable {
    /// One of ``AppStoreOrderLookupStatus``'s raw values.
    package var status: Int?
    /// The order's transactions as JWS (payload ``AppleTransactionPayload``); empty when invalid.
    package var signedTransactions: [String]?

    package init(status: Int?, signedTransactions: [String]?) {
        self.status = status
        self.signedTransactions = signedTransactions
    }
}

/// Whether an order id was found (Apple's `OrderLookupStatus`).
package enum AppStoreOrderLookupStatus: Int, Codable, Sendable {
    case valid = 0
    case invalid = 1
}

/// The body of every App Store Server API error (Apple's `ErrorPayload`). A 401 has no body at all.
package struct AppStoreErrorPayload: Codable, Sendable, Equatable {
    /// One of ``AppStoreErrorCode``'s raw values, or another code Apple added.
    package var errorCode: Int64?
    package var errorMessage: String?

    package init(errorCode: Int64?, errorMessage: String?) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    /// The payload Apple sends for `code`, with Apple's message.
    package init(_ code: AppStoreErrorCode) {
        self.init(errorCode: code.rawValue, errorMessage: code.message)
    }
}

/// The App Store Server API error codes Shopkeeper meets, with the HTTP status Apple sends each with.
package enum AppStoreErrorCode: Int64, Codable, Sendable, CaseIterable {
    /// 400: the request is invalid (e.g. Send Consumption Information without `customerConsented` true).
    case generalBadRequest = 4_000_000
    /// 400: the `revision` query parameter is not one Apple issued.
    case invalidRequestRevision = 4_000_005
    /// 400: the transaction id is not a transaction id at all.
    case invalidTransactionId = 4_000_006
    /// 400: the original transaction id is not a transaction id at all.
    case invalidOriginalTransactionId = 4_000_008
    /// 400: `extendByDays` is not 1 to 90.
    case invalidExtendByDays = 4_000_009
    /// 400: `extendReasonCode` is not 0 to 3.
    case invalidExtendReasonCode = 4_000_010
    /// 400: `requestIdentifier` is missing or too long.
    case invalidRequestIdentifier = 4_000_011
    /// 400: the notification history's `startDate` is older than the history Apple keeps.
    case startDateTooFarInPast = 4_000_012
    /// 400: the notification history's `startDate` is not before its `endDate`.
    case startDateAfterEndDate = 4_000_013
    /// 400: the `paginationToken` is not one Apple issued for this request.
    case invalidPaginationToken = 4_000_014
    /// 400: the notification history's `startDate` is missing or not a date.
    case invalidStartDate = 4_000_015
    /// 400: the notification history's `endDate` is missing or not a date.
    case invalidEndDate = 4_000_016
    /// 400: the notification type or subtype is unknown, or a subtype came without its type.
    case invalidNotificationType = 4_000_018
    /// 400: both `notificationType` and `transactionId` narrow a notification history request.
    case multipleFiltersSupplied = 4_000_019
    /// 400: the test notification token is not one Apple issued (Get Test Notification Status).
    case invalidTestNotificationToken = 4_000_020
    /// 400: a product id is missing or not a product id (Extend Subscription Renewal Dates for All Active
    /// Subscribers).
    case invalidProductId = 4_000_023
    /// 400: a storefront country code is not an ISO 3166-1 alpha-3 code.
    case invalidStorefrontCountryCode = 4_000_028
    /// 400: the app account token is not a UUID (Set App Account Token).
    case invalidAppAccountTokenUUID = 4_000_183
    /// 400: a transaction shared through Family Sharing cannot take an app account token.
    case familyTransactionNotSupported = 4_000_185
    /// 400: Set App Account Token names a transaction that is not an original transaction.
    case transactionIdIsNotOriginalTransactionId = 4_000_187
    /// 403: the subscription's state does not allow a renewal-date extension (free offer period, expired, in
    /// billing retry, or already extended twice in the past 365 days).
    case subscriptionExtensionIneligible = 4_030_004
    /// 403: the subscription has had the most extensions Apple allows.
    case subscriptionMaxExtension = 4_030_005
    /// 403: a subscription the customer has through Family Sharing cannot be extended on its own.
    case familySharedSubscriptionExtensionIneligible = 4_030_007
    /// 404: no such original transaction (in this environment, for this app).
    case originalTransactionIdNotFound = 4_040_005
    /// 404: Request a Test Notification without a notification URL set for this environment.
    case serverNotificationURLNotFound = 4_040_007
    /// 404: no test notification with this token.
    case testNotificationNotFound = 4_040_008
    /// 404: no mass renewal-date extension with this request identifier and product.
    case statusRequestNotFound = 4_040_009
    /// 404: no such transaction (in this environment, for this app).
    case transactionIdNotFound = 4_040_010
    /// 404: the customer has no app transaction.
    case appTransactionDoesNotExist = 4_040_019
    /// 429: too many requests; retry later.
    case rateLimitExceeded = 4_290_000
    /// 500: an error on Apple's side.
    case generalInternal = 5_000_000
    /// 500: an error on Apple's side that is worth retrying.
    case generalInternalRetryable = 5_000_001

    /// Apple's `errorMessage` for this code.
    package var message: String {
        switch self {
        case .generalBadRequest: "Bad request."
        case .invalidRequestRevision: "Invalid request revision."
        case .invalidTransactionId: "Invalid transaction id."
        case .invalidOriginalTransactionId: "Invalid original transaction id."
        case .invalidExtendByDays: "Invalid extend by days value."
        case .invalidExtendReasonCode: "Invalid extend reason code."
        case .invalidRequestIdentifier: "Invalid request identifier."
        case .startDateTooFarInPast:
            "Invalid request. The startDate is earlier than the allowed start date."
        case .startDateAfterEndDate:
            "Invalid request. The end date precedes the start date or the dates are equal."
        case .invalidPaginationToken: "Invalid request. The pagination token is invalid."
        case .invalidStartDate:
            "Invalid request. The start date is not a timestamp value represented in milliseconds."
        case .invalidEndDate:
            "Invalid request. The end date is not a timestamp value represented in milliseconds."
        case .invalidNotificationType: "Invalid request. The notification type or subtype is invalid."
        case .multipleFiltersSupplied:
            "Invalid request. Supply either a transaction id or a notification type, but not both."
        case .invalidTestNotificationToken: "Invalid request. The test notification token is invalid."
        case .invalidProductId: "Invalid request. The product id is invalid."
        case .invalidStorefrontCountryCode: "Invalid request. A storefront country code was invalid."
        case .invalidAppAccountTokenUUID: "Invalid request. The app account token field must be a valid UUID."
        case .familyTransactionNotSupported:
            "Invalid request. Family Sharing transactions aren't supported by this endpoint."
        case .transactionIdIsNotOriginalTransactionId:
            "Invalid request. The transaction ID provided is not an original transaction ID."
        case .subscriptionExtensionIneligible: "Forbidden - unable to act on this subscription."
        case .subscriptionMaxExtension: "Forbidden - subscription has reached maximum extension count."
        case .familySharedSubscriptionExtensionIneligible:
            "Forbidden - subscriptions obtained through Family Sharing cannot be extended."
        case .originalTransactionIdNotFound: "Original transaction id not found."
        case .serverNotificationURLNotFound: "No App Store Server Notification URL found for provided app."
        case .testNotificationNotFound:
            "Either the test notification token is expired or the notification and status are not yet available."
        case .statusRequestNotFound:
            "The server didn't find a subscription-renewal-date extension request for this requestIdentifier and productId combination."
        case .transactionIdNotFound: "Transaction id not found."
        case .appTransactionDoesNotExist: "No AppTransaction exists for the customer."
        case .rateLimitExceeded: "Rate limit exceeded."
        case .generalInternal: "An unknown error occurred."
        case .generalInternalRetryable: "An unknown error occurred. Please try again."
        }
    }

    /// The HTTP status code Apple answers with.
    package var httpStatus: Int {
        Int(rawValue / 10_000)
    }
}

/// `PUT /inApps/v2/transactions/consumption/{transactionId}`: Apple's `ConsumptionRequest`, the app's answer to a
/// `CONSUMPTION_REQUEST` notification (App Store Server API 1.19).
package struct AppStoreConsumptionRequest: Codable, Sendable, Equatable {
    /// Must be `true`: Apple refuses anything else.
    package var customerConsented: Bool
    /// `DELIVERED`, or an `UNDELIVERED_...` reason.
    package var deliveryStatus: String
    package var sampleContentProvided: Bool
    /// The share consumed, in thousandths of a percent (0...100 000); left out when unknown.
    package var consumptionPercentage: Int?
    /// `DECLINE`, `GRANT_FULL` or `GRANT_PRORATED`; left out for no preference.
    package var refundPreference: String?

    package init(
        customerConsented: Bool, deliveryStatus: String, sampleContentProvided: Bool,
        consumptionPercentage: Int? = nil, refundPreference: String? = nil
    ) {
        self.customerConsented = customerConsented
        self.deliveryStatus = deliveryStatus
        self.sampleContentProvided = sampleContentProvided
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }
}
