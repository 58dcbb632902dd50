import Foundation

/// An App Store Server Notification V2 as Apple signs it: the payload of the `signedPayload` JWS Apple POSTs to an
/// app's notification URL (Apple's `ResponseBodyV2DecodedPayload`). Types and subtypes are kept as strings, so a type
/// Apple adds later is still recorded; ``AppleNotificationType`` names those Apple documents.
///
/// A payload carries exactly one of `data` (in-app purchase events), `summary` (`RENEWAL_EXTENSION` `SUMMARY`),
/// `externalPurchaseToken` (`EXTERNAL_PURCHASE_TOKEN`) and `appData` (`RESCIND_CONSENT`).
package struct AppleNotificationPayload: AppleSignedPayload, Codable, Equatable {
    /// One of ``AppleNotificationType``'s raw values (kept as a string: Apple adds types).
    package var notificationType: String
    /// One of ``AppleNotificationSubtype``'s raw values, present only for some types.
    package var subtype: String?
    /// Unique per notification; Apple sends a retried notification with the same one.
    package var notificationUUID: String
    /// The app and the signed transaction and renewal info the notification is about.
    package var data: Data?
    /// For `RENEWAL_EXTENSION` with subtype `SUMMARY`.
    package var summary: Summary?
    /// The App Store Server Notifications version, `2.0`.
    package var version: String?
    /// UNIX milliseconds at which the App Store signed the notification.
    package var signedDate: Int64?
    /// For `EXTERNAL_PURCHASE_TOKEN`: the external purchase token the notification is about.
    package var externalPurchaseToken: ExternalPurchaseToken?
    /// For `RESCIND_CONSENT`: the app and its signed app transaction.
    package var appData: AppData?

    /// The environment of the part the payload has (``app``).
    package var environment: String? { app.environment }

    /// The app a notification is about and its environment, read from whichever part the payload has, as Apple's
    /// `SignedDataVerifier.verifyAndDecodeNotification` reads them: `data`, else `summary`, else
    /// `externalPurchaseToken` (which names no environment: an `externalPurchaseId` that starts with `SANDBOX` is the
    /// sandbox's, any other production's), else `appData`.
    package var app: App {
        if let data {
            return App(bundleId: data.bundleId, appAppleId: data.appAppleId, environment: data.environment)
        }
        if let summary {
            return App(bundleId: summary.bundleId, appAppleId: summary.appAppleId, environment: summary.environment)
        }
        if let token = externalPurchaseToken {
            return App(bundleId: token.bundleId, appAppleId: token.appAppleId, environment: token.environment)
        }
        if let appData {
            return App(bundleId: appData.bundleId, appAppleId: appData.appAppleId, environment: appData.environment)
        }
        return App(bundleId: nil, appAppleId: nil, environment: nil)
    }

    /// The app of a notification: its bundle id, App Apple ID and environment (an ``AppleEnvironment`` raw value).
    package struct App: Equatable, Sendable {
        package var bundleId: String?
        package var appAppleId: Int64?
        package var environment: String?

        package init(bundleId: String?, appAppleId: Int64?, environment: String?) {
            self.bundleId = bundleId
            self.appAppleId = appAppleId
            self.environment = environment
        }
    }

    package init(
        notificationType: String, subtype: String? = nil, notificationUUID: String, data: Data? = nil,
        summary: Summary? = nil, version: String? = "2.0", signedDate: Int64? = nil,
        externalPurchaseToken: ExternalPurchaseToken? = nil, appData: AppData? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.data = data
        self.summary = summary
        self.version = version
        self.signedDate = signedDate
        self.externalPurchaseToken = externalPurchaseToken
        self.appData = appData
    }

    /// The notification's type, when it is one Apple documents.
    package var type: AppleNotificationType? { AppleNotificationType(rawValue: notificationType) }
    /// The notification's subtype, when it has one Apple documents.
    package var typedSubtype: AppleNotificationSubtype? { subtype.flatMap(AppleNotificationSubtype.init(rawValue:)) }

    /// The app and the signed transaction and renewal info a notification is about.
    package struct Data: Codable, Equatable, Sendable {
        /// The app's Apple id (absent in the sandbox environment).
        package var appAppleId: Int64?
        package var bundleId: String?
        /// The build version (`CFBundleVersion`) of the app.
        package var bundleVersion: String?
        /// One of ``AppleEnvironment``'s raw values.
        package var environment: String?
        /// A `JWSTransaction` (``AppleTransactionPayload``).
        package var signedTransactionInfo: String?
        /// A `JWSRenewalInfo` (``AppleRenewalInfoPayload``).
        package var signedRenewalInfo: String?
        /// The subscription's status (as in `GET /inApps/v1/subscriptions`): 1 active, 2 expired, 3 billing retry,
        /// 4 grace period, 5 revoked.
        package var status: Int?
        /// For `CONSUMPTION_REQUEST`: why the customer asked for a refund (`UNINTENDED_PURCHASE`,
        /// `FULFILLMENT_ISSUE`, `UNSATISFIED_WITH_PURCHASE`, `LEGAL`, `OTHER`).
        package var consumptionRequestReason: String?

        package init(
            appAppleId: Int64? = nil, bundleId: String? = nil, bundleVersion: String? = nil, environment: String? = nil,
            signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil, status: Int? = nil,
            consumptionRequestReason: String? = nil
        ) {
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.bundleVersion = bundleVersion
            self.environment = environment
            self.signedTransactionInfo = signedTransactionInfo
            self.signedRenewalInfo = signedRenewalInfo
            self.status = status
            self.consumptionRequestReason = consumptionRequestReason
        }
    }

    /// The outcome of a mass subscription-renewal-date extension (`RENEWAL_EXTENSION`, `SUMMARY`).
    package struct Summary: Codable, Equatable, Sendable {
        /// The id of the mass-extension request.
        package var requestIdentifier: String?
        package var environment: String?
        package var appAppleId: Int64?
        package var bundleId: String?
        /// The subscription whose renewal dates were extended.
        package var productId: String?
        /// ISO 3166-1 alpha-3 codes of the storefronts the extension applied to.
        package var storefrontCountryCodes: [String]?
        /// How many subscriptions were extended.
        package var succeededCount: Int64?
        /// How many could not be extended.
        package var failedCount: Int64?

        package init(
            requestIdentifier: String? = nil, environment: String? = nil, appAppleId: Int64? = nil,
            bundleId: String? = nil, productId: String? = nil, storefrontCountryCodes: [String]? = nil,
            succeededCount: Int64? = nil, failedCount: Int64? = nil
        ) {
            self.requestIdentifier = requestIdentifier
            self.environment = environment
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.productId = productId
            self.storefrontCountryCodes = storefrontCountryCodes
            self.succeededCount = succeededCount
            self.failedCount = failedCount
        }
    }

    /// An external purchase token (`EXTERNAL_PURCHASE_TOKEN`): the decoded token of an external purchase.
    package struct ExternalPurchaseToken: Codable, Equatable, Sendable {
        /// Uniquely identifies the token.
        package var externalPurchaseId: String?
        /// UNIX milliseconds at which the token was created.
        package var tokenCreationDate: Int64?
        package var appAppleId: Int64?
        package var bundleId: String?

        package init(
            externalPurchaseId: String? = nil, tokenCreationDate: Int64? = nil, appAppleId: Int64? = nil,
            bundleId: String? = nil
        ) {
            self.externalPurchaseId = externalPurchaseId
            self.tokenCreationDate = tokenCreationDate
            self.appAppleId = appAppleId
            self.bundleId = bundleId
        }

        /// The token's environment, which Apple does not write: `Sandbox` when ``externalPurchaseId`` starts with
        /// `SANDBOX`, else `Production` (Apple's libraries' rule).
        package var environment: String {
            externalPurchaseId?.hasPrefix("SANDBOX") == true
                ? AppleEnvironment.sandbox.rawValue : AppleEnvironment.production.rawValue
        }
    }

    /// The app of a `RESCIND_CONSENT` notification and its signed app transaction.
    package struct AppData: Codable, Equatable, Sendable {
        package var appAppleId: Int64?
        package var bundleId: String?
        /// One of ``AppleEnvironment``'s raw values.
        package var environment: String?
        /// A `JWSAppTransaction` (``AppleAppTransactionPayload``).
        package var signedAppTransactionInfo: String?

        package init(
            appAppleId: Int64? = nil, bundleId: String? = nil, environment: String? = nil,
            signedAppTransactionInfo: String? = nil
        ) {
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.environment = environment
            self.signedAppTransactionInfo = signedAppTransactionInfo
        }
    }
}

/// `{"signedPayload": "<JWS>"}`: the body Apple POSTs to an app's App Store Server Notifications V2 URL
/// (Apple's `responseBodyV2`).
package struct AppleResponseBodyV2: Codable, Equatable, Sendable {
    /// A JWS (ES256, `x5c` chain) whose payload is an ``AppleNotificationPayload``.
    package var signedPayload: String

    package init(signedPayload: String) {
        self.signedPayload = signedPayload
    }
}

/// The notification types Apple documents for App Store Server Notifications V2.
package enum AppleNotificationType: String, Codable, Sendable, CaseIterable {
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    case didRenew = "DID_RENEW"
    case expired = "EXPIRED"
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    case metadataUpdate = "METADATA_UPDATE"
    case migration = "MIGRATION"
    case offerRedeemed = "OFFER_REDEEMED"
    case oneTimeCharge = "ONE_TIME_CHARGE"
    case priceChange = "PRICE_CHANGE"
    case priceIncrease = "PRICE_INCREASE"
    case refund = "REFUND"
    case refundDeclined = "REFUND_DECLINED"
    case refundReversed = "REFUND_REVERSED"
    case renewalExtended = "RENEWAL_EXTENDED"
    case renewalExtension = "RENEWAL_EXTENSION"
    /// The customer withdrew the consent given through the Declared Age Range API (carries `appData`).
    case rescindConsent = "RESCIND_CONSENT"
    case revoke = "REVOKE"
    case subscribed = "SUBSCRIBED"
    case test = "TEST"
}

/// The notification subtypes Apple documents.
package enum AppleNotificationSubtype: String, Codable, Sendable, CaseIterable {
    case accepted = "ACCEPTED"
    case activeTokenReminder = "ACTIVE_TOKEN_REMINDER"
    case autoRenewDisabled = "AUTO_RENEW_DISABLED"
    case autoRenewEnabled = "AUTO_RENEW_ENABLED"
    case billingRecovery = "BILLING_RECOVERY"
    case billingRetry = "BILLING_RETRY"
    /// `EXTERNAL_PURCHASE_TOKEN`: Apple created an external purchase token for the app.
    case created = "CREATED"
    case downgrade = "DOWNGRADE"
    case failure = "FAILURE"
    case gracePeriod = "GRACE_PERIOD"
    case initialBuy = "INITIAL_BUY"
    case pending = "PENDING"
    case priceIncrease = "PRICE_INCREASE"
    case productNotForSale = "PRODUCT_NOT_FOR_SALE"
    case resubscribe = "RESUBSCRIBE"
    case summary = "SUMMARY"
    case unreported = "UNREPORTED"
    case upgrade = "UPGRADE"
    case voluntary = "VOLUNTARY"
}
