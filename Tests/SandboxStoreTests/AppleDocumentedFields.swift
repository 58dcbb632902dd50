/// The fields of every kind of JWS payload the App Store signs, as Apple documents them and Apple's App Store Server
/// Library models them (`app-store-server-library` 3.1.2, `appstoreserverlibrary/models/`; Apple's pages
/// `appstoreserverapi/jwstransactiondecodedpayload`, `.../jwsrenewalinfodecodedpayload`,
/// `appstoreservernotifications/responsebodyv2decodedpayload`, `.../data`, `.../summary`, `.../appdata`,
/// `.../externalpurchasetoken`, `storekit/apptransaction`).
///
/// `always`: present in every payload of that kind the sandbox signs; `when`: documented, present only when it
/// applies (the condition says when; the test checks the ones the sandbox can know). A key outside both is not
/// Apple's.
struct AppleDocumentedFields {
    var always: Set<String>
    var when: [String: String]

    var documented: Set<String> { always.union(when.keys) }

    /// `JWSTransactionDecodedPayload`.
    static let transaction = AppleDocumentedFields(
        always: [
            "transactionId", "originalTransactionId", "bundleId", "productId", "purchaseDate", "originalPurchaseDate",
            "quantity", "type", "inAppOwnershipType", "signedDate", "environment", "transactionReason", "storefront",
            "storefrontId", "price", "currency", "appTransactionId",
        ],
        when: [
            "webOrderLineItemId": "auto-renewable subscriptions",
            "subscriptionGroupIdentifier": "auto-renewable subscriptions",
            "expiresDate": "auto-renewable subscriptions",
            "appAccountToken": "the purchase named one",
            "revocationDate": "refunded or revoked",
            "revocationReason": "refunded or revoked",
            "revocationType": "refunded or revoked",
            "revocationPercentage": "a prorated refund (the sandbox refunds in full)",
            "isUpgraded": "the customer upgraded out of it",
            "offerType": "bought with an offer",
            "offerIdentifier": "bought with a promotional offer, an offer code or a win-back offer",
            "offerDiscountType": "bought with an offer",
            "offerPeriod": "bought with an offer",
            "advancedCommerceInfo": "Advanced Commerce API products (not sold by the sandbox)",
            "billingPlanType": "subscriptions with a billing plan (not sold by the sandbox)",
            "commitmentInfo": "subscriptions with a commitment (not sold by the sandbox)",
        ])

    /// `JWSRenewalInfoDecodedPayload`.
    static let renewalInfo = AppleDocumentedFields(
        always: [
            "originalTransactionId", "autoRenewProductId", "productId", "autoRenewStatus", "signedDate", "environment",
            "recentSubscriptionStartDate", "renewalDate", "currency", "renewalPrice", "appTransactionId",
            "isInBillingRetryPeriod",
        ],
        when: [
            "expirationIntent": "the subscription expired",
            "gracePeriodExpiresDate": "in a billing grace period",
            "appAccountToken": "the purchase named one",
            "priceIncreaseStatus": "a price increase awaits consent (not raised by the sandbox)",
            "offerType": "an offer applies at the next renewal",
            "offerIdentifier": "an offer applies at the next renewal",
            "offerDiscountType": "an offer applies at the next renewal",
            "offerPeriod": "an offer applies at the next renewal",
            "eligibleWinBackOfferIds": "win-back offers are configured (not by the sandbox)",
            "advancedCommerceInfo": "Advanced Commerce API products (not sold by the sandbox)",
            "commitmentInfo": "subscriptions with a commitment (not sold by the sandbox)",
            "renewalBillingPlanType": "subscriptions with a billing plan (not sold by the sandbox)",
        ])

    /// `ResponseBodyV2DecodedPayload`: exactly one of `data`, `summary`, `appData` and `externalPurchaseToken`.
    static let notification = AppleDocumentedFields(
        always: ["notificationType", "notificationUUID", "version", "signedDate"],
        when: [
            "subtype": "the type has subtypes",
            "data": "about a transaction or the app",
            "summary": "RENEWAL_EXTENSION SUMMARY",
            "appData": "RESCIND_CONSENT",
            "externalPurchaseToken": "EXTERNAL_PURCHASE_TOKEN",
        ])

    /// `data` of a notification.
    static let notificationData = AppleDocumentedFields(
        always: ["bundleId", "environment"],
        when: [
            "appAppleId": "the purchase named the app's Apple ID",
            "bundleVersion": "about a transaction",
            "signedTransactionInfo": "about a transaction",
            "signedRenewalInfo": "about an auto-renewable subscription",
            "status": "about an auto-renewable subscription",
            "consumptionRequestReason": "CONSUMPTION_REQUEST",
        ])

    /// `summary` of a `RENEWAL_EXTENSION` `SUMMARY` notification.
    static let notificationSummary = AppleDocumentedFields(
        always: [
            "requestIdentifier", "environment", "appAppleId", "bundleId", "productId", "storefrontCountryCodes",
            "succeededCount", "failedCount",
        ],
        when: [:])

    /// `appData` of a `RESCIND_CONSENT` notification.
    static let notificationAppData = AppleDocumentedFields(
        always: ["appAppleId", "bundleId", "environment", "signedAppTransactionInfo"], when: [:])

    /// `externalPurchaseToken` of an `EXTERNAL_PURCHASE_TOKEN` notification.
    static let externalPurchaseToken = AppleDocumentedFields(
        always: ["externalPurchaseId", "tokenCreationDate", "appAppleId", "bundleId"], when: [:])

    /// `AppTransaction` (`JWSAppTransactionDecodedPayload`).
    static let appTransaction = AppleDocumentedFields(
        always: [
            "receiptType", "appAppleId", "bundleId", "applicationVersion", "versionExternalIdentifier",
            "receiptCreationDate", "originalPurchaseDate", "originalApplicationVersion", "deviceVerification",
            "deviceVerificationNonce", "appTransactionId", "originalPlatform",
        ],
        when: ["preorderDate": "the customer pre-ordered the app"])

    /// The problems of `object` against this list: missing `always` keys and keys Apple does not document.
    func problems(_ object: [String: Any], kind: String) -> [String] {
        let keys = Set(object.keys)
        let missing = always.subtracting(keys).sorted().map { "\(kind): missing \($0)" }
        let unknown = keys.subtracting(documented).sorted().map { "\(kind): undocumented \($0)" }
        return missing + unknown
    }
}
