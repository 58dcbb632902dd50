import Foundation
import ShopkeeperStores

/// One App Store transaction the sandbox sold, as it is kept; signed afresh (new `signedDate`) on every answer.
struct AppleTransactionRecord: Codable, Sendable, Equatable {
    var transactionId: String
    var originalTransactionId: String
    var webOrderLineItemId: String?
    var bundleId: String
    var productId: String
    var subscriptionGroupIdentifier: String?
    /// UNIX milliseconds, as Apple writes dates.
    var purchaseDate: Int64
    var originalPurchaseDate: Int64
    var expiresDate: Int64?
    /// Milliseconds a period of this subscription lasts, as sold (an `advance` may end the current one early).
    var periodLength: Int64?
    var quantity: Int
    var type: AppleProductType
    var appAccountToken: String?
    /// The app account token Set App Account Token gave the purchase: signed instead of ``appAccountToken``, which
    /// stays the customer's identity (``customerKey``) as the Apple Account is at Apple.
    var assignedAppAccountToken: String?
    var environment: AppleEnvironment
    var storefront: String
    var storefrontId: String
    /// `PURCHASE` or `RENEWAL`.
    var transactionReason: String
    var currency: String
    /// Milliunits of `currency`.
    var price: Int64
    var offerType: Int?
    var offerIdentifier: String?
    var offerDiscountType: String?
    var offerPeriod: String?
    /// The order (invoice) id `GET /inApps/v1/lookup/{orderId}` finds this transaction by.
    var orderId: String
    var appAppleId: Int64?
    var revocationDate: Int64?
    var revocationReason: Int?
    /// `refund` or `revoke`: which control ended the transaction.
    var revocationKind: String?
    /// Whether the subscription will renew (1) or not (0).
    var autoRenewStatus: Int?
    /// The App Store is retrying to bill an expired subscription (status 3, or 4 within the grace period).
    var isInBillingRetryPeriod: Bool?
    /// UNIX milliseconds: until then an expired subscription whose billing failed stays in service (status 4).
    var gracePeriodExpiresDate: Int64?
    /// `CFBundleVersion` of the app that made the purchase (`app_version`, default `1.0`): the receipt's
    /// application version. Legacy receipts are not kept but made afresh on demand (`SandboxStore+Receipts`).
    var appVersion: String?
    /// The customer upgraded out of this transaction's period (it ended early; a new transaction began).
    var isUpgraded: Bool?
    /// Why the subscription ended, when the clock ended it (Apple's `expirationIntent`: 1 voluntary, 2 billing).
    var expirationIntent: Int?

    /// The transactions one customer sees together in history and subscription status: those of the same app and
    /// environment with the same `appAccountToken`, or, without a token, the same subscription chain.
    var customerKey: String {
        "\(environment.rawValue)|\(bundleId)|"
            + (appAccountToken.map { "token:\($0)" } ?? "otid:\(originalTransactionId)")
    }

    var isRevoked: Bool { revocationDate != nil }

    /// The `appAccountToken` the signed transaction and renewal info carry.
    var signedAppAccountToken: String? { assignedAppAccountToken ?? appAccountToken }

    /// The customer's `appTransactionId` (see ``AppleAppTransactionRecord/appTransactionId(customerKey:)``).
    var appTransactionId: String { AppleAppTransactionRecord.appTransactionId(customerKey: customerKey) }

    /// Apple's `revocationType` once revoked: a refund is a full refund, a revocation takes back what family
    /// sharing gave.
    var revocationType: String? {
        guard isRevoked else { return nil }
        return revocationKind == "revoke" ? "FAMILY_REVOKE" : "REFUND_FULL"
    }

    /// The payload Apple would sign for this transaction at `signedDate`.
    func payload(signedDate: Date) -> AppleTransactionPayload {
        AppleTransactionPayload(
            transactionId: transactionId, originalTransactionId: originalTransactionId,
            webOrderLineItemId: webOrderLineItemId, bundleId: bundleId, productId: productId,
            subscriptionGroupIdentifier: subscriptionGroupIdentifier, purchaseDate: purchaseDate,
            originalPurchaseDate: originalPurchaseDate, expiresDate: expiresDate, quantity: quantity,
            type: type.rawValue, appAccountToken: signedAppAccountToken, inAppOwnershipType: "PURCHASED",
            signedDate: signedDate.appleMilliseconds, revocationReason: revocationReason,
            revocationDate: revocationDate, offerType: offerType, offerIdentifier: offerIdentifier,
            environment: environment.rawValue, storefront: storefront, storefrontId: storefrontId,
            transactionReason: transactionReason, currency: currency, price: price,
            offerDiscountType: offerDiscountType, offerPeriod: offerPeriod, appTransactionId: appTransactionId,
            revocationType: revocationType
        )
        .upgraded(isUpgraded)
    }

    /// Apple's status number for a subscription whose latest transaction this is.
    func subscriptionStatus(at now: Date) -> AppStoreSubscriptionStatus {
        let milliseconds = now.appleMilliseconds
        if isRevoked { return .revoked }
        if let expiresDate, expiresDate > milliseconds { return .active }
        if let gracePeriodExpiresDate, gracePeriodExpiresDate > milliseconds { return .billingGracePeriod }
        if isInBillingRetryPeriod == true { return .billingRetry }
        return .expired
    }

    /// The renewal info Apple would sign for a subscription whose latest transaction this is.
    /// `autoRenewProductId` is the product it renews into when the customer chose another (a downgrade).
    func renewalInfo(signedDate: Date, recentStart: Int64, autoRenewProductId: String? = nil)
        -> AppleRenewalInfoPayload
    {
        let renews = !isRevoked && autoRenewStatus != 0
        let retrying = !isRevoked && (isInBillingRetryPeriod == true || gracePeriodExpiresDate != nil)
        let expired = subscriptionStatus(at: signedDate) != .active
        return AppleRenewalInfoPayload(
            originalTransactionId: originalTransactionId, productId: productId,
            autoRenewProductId: autoRenewProductId ?? productId,
            autoRenewStatus: renews ? 1 : 0, isInBillingRetryPeriod: retrying,
            expirationIntent: expired ? (expirationIntent ?? (retrying || renews ? 2 : 1)) : nil,
            gracePeriodExpiresDate: isRevoked ? nil : gracePeriodExpiresDate, signedDate: signedDate.appleMilliseconds,
            environment: environment.rawValue, recentSubscriptionStartDate: recentStart,
            renewalDate: expiresDate, currency: currency, renewalPrice: price, appAccountToken: signedAppAccountToken,
            appTransactionId: appTransactionId
        )
    }
}

extension AppleTransactionPayload {
    /// This payload with `isUpgraded` set (Apple writes it only when true).
    func upgraded(_ value: Bool?) -> AppleTransactionPayload {
        var copy = self
        copy.isUpgraded = value == true ? true : nil
        return copy
    }
}

/// Consumption information an app sent for a transaction (Send Consumption Information), as sent.
struct AppleConsumptionRecord: Codable, Sendable, Equatable {
    var transactionId: String
    /// `v1` or `v2`: the endpoint it came through.
    var version: String
    /// The JSON body as received.
    var body: String
    var receivedAt: Date
}

/// An App Store Connect in-app purchase key the sandbox issued; only its public half is kept.
struct AppleAPIKeyRecord: Codable, Sendable, Equatable {
    var keyId: String
    var issuerId: String
    var bundleId: String
    /// SPKI PEM.
    var publicKey: String
}
