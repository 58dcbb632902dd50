import Foundation
import ShopkeeperStores

/// Writes `POST /v1/notifications/apple` bodies, one JSON object per line: each a `SUBSCRIBED` (`INITIAL_BUY`)
/// App Store Server Notification V2 about a new subscription of `PRODUCT` (a month from now), with its signed
/// transaction and renewal info, all signed by the sandbox store's chain (`pki.pem`), for the notification benchmark.
///
///     shopkeeper-bench-jws emit-notifications COUNT PKI_PEM BUNDLE_ID PRODUCT > bodies.jsonl
enum NotificationBodies {
    static func emit(count: Int, pkiPath: String, bundleID: String, productID: String) throws {
        let chain = try SigningChain(pemBundle: try String(contentsOfFile: pkiPath, encoding: .utf8))
        let signer = try ES256Signer(chain: chain)
        let run = UUID().uuidString.prefix(8)
        let now = Date().appleMilliseconds
        let month: Int64 = 30 * 86_400_000
        var output = ""
        for index in 0..<count {
            let id = "bench-n-\(run)-\(index)"
            let transaction = AppleTransactionPayload(
                transactionId: id, originalTransactionId: id, webOrderLineItemId: id, bundleId: bundleID,
                productId: productID, subscriptionGroupIdentifier: "20000001", purchaseDate: now,
                originalPurchaseDate: now, expiresDate: now + month, quantity: 1,
                type: AppleProductType.autoRenewable.rawValue, inAppOwnershipType: "PURCHASED", signedDate: now,
                environment: "Sandbox", storefront: "USA", storefrontId: "143441", transactionReason: "PURCHASE",
                currency: "USD", price: 4990)
            let renewal = AppleRenewalInfoPayload(
                originalTransactionId: id, productId: productID, autoRenewProductId: productID, autoRenewStatus: 1,
                isInBillingRetryPeriod: false, signedDate: now, environment: "Sandbox",
                recentSubscriptionStartDate: now, renewalDate: now + month)
            let notification = AppleNotificationPayload(
                notificationType: AppleNotificationType.subscribed.rawValue,
                subtype: AppleNotificationSubtype.initialBuy.rawValue, notificationUUID: UUID().uuidString.lowercased(),
                data: .init(
                    bundleId: bundleID, bundleVersion: "1.0", environment: "Sandbox",
                    signedTransactionInfo: try signer.sign(transaction), signedRenewalInfo: try signer.sign(renewal),
                    status: 1),
                signedDate: now)
            let body = try JSONSerialization.data(withJSONObject: ["signedPayload": try signer.sign(notification)])
            output += String(decoding: body, as: UTF8.self) + "\n"
            if output.utf8.count > 1 << 20 {
                FileHandle.standardOutput.write(Data(output.utf8))
                output = ""
            }
        }
        FileHandle.standardOutput.write(Data(output.utf8))
    }
}
