import Foundation
import ShopkeeperCore
import ShopkeeperStores

/// Legacy receipts: the app receipt of a customer, and the shared secrets `verifyReceipt` checks.
///
/// Receipts are not kept: each is made afresh from the current state (`POST /sandbox/apple/transactions`,
/// `GET /sandbox/apple/transactions/{id}/receipt`), so a receipt made after a refund shows the cancellation while
/// one made before does not, as on a device.
extension SandboxStore {
    /// The app receipt the customer of transaction `id` holds at `now`: one in-app purchase per transaction of the
    /// customer (see ``AppleTransactionRecord/customerKey``), in the order they were made.
    ///
    /// The application version is that of the customer's newest transaction, the original application version
    /// that of the oldest.
    func appReceipt(forTransaction id: String, at now: Date = Date()) throws -> AppReceipt {
        guard let record = appleTransaction(id: id) else { throw SandboxStoreError.transactionNotFound(id) }
        let transactions = customerTransactions(of: record)
        let first = transactions.first ?? record
        let newest = transactions.last ?? record
        return AppReceipt(
            receiptType: record.environment == .production ? "Production" : "ProductionSandbox",
            bundleId: record.bundleId,
            applicationVersion: newest.appVersion ?? "1.0",
            originalApplicationVersion: first.appVersion ?? "1.0",
            creationDate: now,
            originalPurchaseDate: Date(appleMilliseconds: first.originalPurchaseDate),
            opaqueValue: Data((0..<16).map { _ in UInt8.random(in: 0...255) }),
            sha1Hash: Data((0..<20).map { _ in UInt8.random(in: 0...255) }),
            inAppPurchases: transactions.map(\.inAppPurchase)
        )
    }

    /// The current transactions of the customers whose purchases `receipt` holds, in `environment`, in the order
    /// they were made: what `latest_receipt_info` is made of. Purchases the store does not know are passed by.
    func currentTransactions(ofReceipt receipt: AppReceipt, environment: AppleEnvironment) -> [AppleTransactionRecord] {
        let keys = Set(
            receipt.inAppPurchases.compactMap { purchase -> String? in
                guard let record = appleTransaction(id: purchase.transactionId),
                    record.bundleId == receipt.bundleId, record.environment == environment
                else { return nil }
                return record.customerKey
            })
        return keys.flatMap { customerIndex[$0] ?? [] }.sorted().map { state.appleTransactions[$0] }
    }

    /// The shared secret of `bundleId`, made (32 hex characters) and saved the first time; `created` tells which.
    func sharedSecret(bundleId: String) throws -> (secret: String, created: Bool) {
        if let existing = state.appleSharedSecrets[bundleId] { return (existing, false) }
        let secret = (0..<16).map { _ in UInt8.random(in: 0...255) }.hexString
        state.appleSharedSecrets[bundleId] = secret
        try commit()
        return (secret, true)
    }

    /// The shared secret of `bundleId` if one was made.
    func existingSharedSecret(bundleId: String) -> String? {
        state.appleSharedSecrets[bundleId]
    }
}

extension AppleTransactionRecord {
    /// A free trial, introductory or not (`is_trial_period`).
    var isTrialPeriod: Bool { offerDiscountType == "FREE_TRIAL" }

    /// A paid introductory offer (`offer_type` 1, pay as you go or up front: `is_in_intro_offer_period`).
    var isInIntroOfferPeriod: Bool { offerType == 1 && !isTrialPeriod }

    /// This transaction as an in-app purchase of an app receipt: expiry for auto-renewable subscriptions,
    /// cancellation once refunded or revoked, the promotional offer (`offer_type` 2) it was bought with.
    var inAppPurchase: AppReceipt.InAppPurchase {
        AppReceipt.InAppPurchase(
            quantity: quantity,
            productId: productId,
            transactionId: transactionId,
            originalTransactionId: originalTransactionId,
            purchaseDate: Date(appleMilliseconds: purchaseDate),
            originalPurchaseDate: Date(appleMilliseconds: originalPurchaseDate),
            expiresDate: type == .autoRenewable ? expiresDate.map(Date.init(appleMilliseconds:)) : nil,
            cancellationDate: revocationDate.map(Date.init(appleMilliseconds:)),
            webOrderLineItemId: webOrderLineItemId.flatMap { Int64($0) },
            isTrialPeriod: isTrialPeriod,
            isInIntroOfferPeriod: isInIntroOfferPeriod,
            promotionalOfferIdentifier: offerType == 2 ? offerIdentifier : nil
        )
    }

    /// This transaction as an entry of `latest_receipt_info`, with what the receipt's ASN.1 cannot carry
    /// (cancellation reason, subscription group, offer code).
    var latestReceiptInfo: VerifyReceiptResponse.InApp {
        var info = VerifyReceiptResponse.InApp(inAppPurchase)
        info.cancellationReason = revocationReason.map { String($0) }
        info.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        info.offerCodeRefName = offerType == 3 ? offerIdentifier : nil
        return info
    }

    /// The `pending_renewal_info` entry of a subscription whose latest transaction this is, at `now`: the same
    /// renewal state the App Store Server API signs (``renewalInfo(signedDate:recentStart:)``).
    func pendingRenewalInfo(at now: Date, renewsInto: String? = nil) -> VerifyReceiptResponse.PendingRenewalInfo {
        let renewal = renewalInfo(signedDate: now, recentStart: originalPurchaseDate, autoRenewProductId: renewsInto)
        var info = VerifyReceiptResponse.PendingRenewalInfo(
            originalTransactionId: originalTransactionId, productId: productId,
            autoRenewProductId: renewal.autoRenewProductId, autoRenewStatus: renewal.autoRenewStatus == 1)
        info.expirationIntent = renewal.expirationIntent.map { String($0) }
        let expired = subscriptionStatus(at: now) != .active
        if expired || renewal.isInBillingRetryPeriod == true {
            info.isInBillingRetryPeriod = renewal.isInBillingRetryPeriod == true ? "1" : "0"
        }
        info.gracePeriodExpiresAt = renewal.gracePeriodExpiresDate.map(Date.init(appleMilliseconds:))
        return info
    }
}
