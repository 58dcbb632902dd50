/// The App Store Server API's remaining endpoints that Apple's App Store Server Library calls (Request a Test
/// Notification and its status, mass renewal-date extensions and their status, Set App Account Token, Get App
/// Transaction Info), with Apple's JSON field names. The sandbox store encodes the responses and decodes the requests.
/// Every field is optional, as in Apple's own library.

/// `POST /inApps/v1/notifications/test`: Apple's `SendTestNotificationResponse`.
package struct AppStoreSendTestNotificationResponse: Codable, Sendable, Equatable {
    /// Send it to Get Test Notification Status.
    package var testNotificationToken: String?

    package init(testNotificationToken: String?) {
        self.testNotificationToken = testNotificationToken
    }
}

/// `GET /inApps/v1/notifications/test/{testNotificationToken}`: Apple's `CheckTestNotificationResponse`.
package struct AppStoreCheckTestNotificationResponse: Codable, Sendable, Equatable {
    /// The `TEST` notification's `signedPayload`, as it was POSTed.
    package var signedPayload: String?
    package var sendAttempts: [AppStoreSendAttempt]?

    package init(signedPayload: String?, sendAttempts: [AppStoreSendAttempt]?) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}

/// `POST /inApps/v1/subscriptions/extend/mass`: Apple's `MassExtendRenewalDateRequest`.
package struct AppStoreMassExtendRenewalDateRequest: Codable, Sendable, Equatable {
    /// 1 to 90.
    package var extendByDays: Int?
    /// 0 to 3 (Apple's `ExtendReasonCode`).
    package var extendReasonCode: Int?
    /// A UUID naming this request (at most 128 characters).
    package var requestIdentifier: String?
    /// ISO 3166-1 alpha-3 codes of the storefronts whose subscribers to extend; all when absent.
    package var storefrontCountryCodes: [String]?
    /// The auto-renewable subscription whose active subscribers to extend.
    package var productId: String?

    package init(
        extendByDays: Int?, extendReasonCode: Int?, requestIdentifier: String?, storefrontCountryCodes: [String]?,
        productId: String?
    ) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
        self.productId = productId
    }
}

/// The answer to ``AppStoreMassExtendRenewalDateRequest``: Apple's `MassExtendRenewalDateResponse`.
package struct AppStoreMassExtendRenewalDateResponse: Codable, Sendable, Equatable {
    package var requestIdentifier: String?

    package init(requestIdentifier: String?) {
        self.requestIdentifier = requestIdentifier
    }
}

/// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`: Apple's
/// `MassExtendRenewalDateStatusResponse`.
package struct AppStoreMassExtendRenewalDateStatusResponse: Codable, Sendable, Equatable {
    package var requestIdentifier: String?
    package var complete: Bool?
    /// UNIX milliseconds, once complete.
    package var completeDate: Int64?
    package var succeededCount: Int64?
    package var failedCount: Int64?

    package init(
        requestIdentifier: String?, complete: Bool?, completeDate: Int64?, succeededCount: Int64?, failedCount: Int64?
    ) {
        self.requestIdentifier = requestIdentifier
        self.complete = complete
        self.completeDate = completeDate
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}

/// `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`: Apple's `UpdateAppAccountTokenRequest`.
package struct AppStoreUpdateAppAccountTokenRequest: Codable, Sendable, Equatable {
    /// A UUID.
    package var appAccountToken: String?

    package init(appAccountToken: String?) {
        self.appAccountToken = appAccountToken
    }
}

/// `GET /inApps/v1/transactions/appTransactions/{transactionId}`: Apple's `AppTransactionInfoResponse`.
package struct AppStoreAppTransactionInfoResponse: Codable, Sendable, Equatable {
    /// The customer's app transaction as JWS (payload ``AppleAppTransactionPayload``).
    package var signedAppTransactionInfo: String?

    package init(signedAppTransactionInfo: String?) {
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }
}
