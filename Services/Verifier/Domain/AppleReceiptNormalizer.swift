import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// Turns the purchases of a `verifyReceipt` answer into the one transaction model of every store.
enum AppleReceiptNormalizer {
    /// The transactions of `response`: `latest_receipt_info` when present (it has renewals), else the
    /// receipt's `in_app`, each transaction once.
    static func normalize(_ response: VerifyReceiptResponse) throws(VerifierError) -> [StoreTransaction] {
        // Apple answers `Production` or `Sandbox`; a StoreKit Testing receipt read locally is `Xcode` or `LocalTesting`.
        let environment =
            response.environment.flatMap(AppleEnvironment.init(rawValue:))
            .map(AppleTransactionNormalizer.storeEnvironment) ?? .sandbox
        let records = response.latestReceiptInfo ?? response.receipt?.inApp ?? []
        var seen: Set<String> = []
        var transactions: [StoreTransaction] = []
        for record in records where seen.insert(record.transactionId).inserted {
            let purchase: AppReceipt.InAppPurchase
            do {
                purchase = try AppReceipt.InAppPurchase(record)
            } catch {
                throw .proofRejected(
                    code: "malformed_receipt", detail: "Apple's answer has an unreadable \(error.field).")
            }
            transactions.append(
                StoreTransaction(
                    store: .appStore,
                    environment: environment,
                    transactionID: purchase.transactionId,
                    originalTransactionID: purchase.originalTransactionId,
                    storeProductID: purchase.productId,
                    // Receipts carry an expiry for auto-renewable subscriptions only; other kinds come from the catalog.
                    type: purchase.expiresDate == nil ? nil : .autoRenewable,
                    quantity: max(1, purchase.quantity),
                    purchaseDate: purchase.purchaseDate.wholeSeconds,
                    originalPurchaseDate: purchase.originalPurchaseDate.wholeSeconds,
                    expiresDate: purchase.expiresDate?.wholeSeconds,
                    revocationDate: purchase.cancellationDate?.wholeSeconds,
                    revocationReason: purchase.cancellationDate == nil
                        ? nil : (record.cancellationReason == "1" ? .appIssue : .other),
                    ownershipType: record.inAppOwnershipType == "FAMILY_SHARED" ? .familyShared : .purchased,
                    offer: offer(purchase)
                )
            )
        }
        return transactions
    }

    private static func offer(_ purchase: AppReceipt.InAppPurchase) -> StoreOffer? {
        if let promotional = purchase.promotionalOfferIdentifier {
            return StoreOffer(type: "promotional", identifier: promotional)
        }
        if purchase.isTrialPeriod { return StoreOffer(type: "introductory", discountType: "free_trial") }
        if purchase.isInIntroOfferPeriod { return StoreOffer(type: "introductory") }
        return nil
    }
}
