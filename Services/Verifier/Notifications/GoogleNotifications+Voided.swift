import Foundation
import ShopkeeperModels
import ShopkeeperStores

extension GoogleNotifications {
    /// The inbox id of a voided purchase found by polling: one per order, however often the list shows it, and for a
    /// quantity-based partial refund one per order and voided time (an order may be refunded a few units at a time;
    /// each refund is listed once with its own time). Pub/Sub message ids are numbers, so it never names a pushed
    /// notification.
    static func polledVoidedID(orderID: String, partialAtMillis: String? = nil) -> String {
        partialAtMillis.map { "voidedpurchases:\(orderID):partial:\($0)" } ?? "voidedpurchases:\(orderID)"
    }

    /// Records a purchase the Voided Purchases API lists as voided as the voided-purchase notification Google would
    /// have pushed for it (`voidedPurchaseNotification`: token, order, product type, a full refund, or a
    /// quantity-based partial refund when the list gives a `voidedQuantity`), in the same
    /// inbox: the notification worker then processes it exactly like a pushed one (the purchase's state fetched from
    /// the Play Developer API, its revocation recorded once and applied), with the same retries. Returns whether it
    /// was new (`false`: this order's void was found by an earlier poll).
    ///
    /// `orderID` is the list's order id (the purchase token when Google gives none, as for the recorded fact);
    /// `isSubscription` comes from what the verifier recorded of the order, as the list does not say.
    func recordPolledVoid(
        _ voided: GoogleVoidedPurchase, orderID: String, token: String, isSubscription: Bool, appID: String,
        packageName: String
    ) async throws -> Bool {
        let voidedAt = voided.voidedTimeMillis.flatMap(Int64.init).map(Date.init(appleMilliseconds:))
        let partial = !isSubscription && (voided.voidedQuantity ?? 0) > 0
        let notification = GoogleDeveloperNotification(
            packageName: packageName, eventTimeMillis: voided.voidedTimeMillis,
            voidedPurchaseNotification: .init(
                purchaseToken: token, orderId: orderID,
                productType: (isSubscription ? GoogleVoidedProductType.subscription : .oneTime).rawValue,
                refundType: (partial ? GoogleRefundType.quantityBasedPartialRefund : .fullRefund).rawValue))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let payload = String(decoding: try encoder.encode(notification), as: UTF8.self)
        return try await inbox.record(
            ReceivedNotification(
                store: StorePlatform.playStore.rawValue,
                id: Self.polledVoidedID(
                    orderID: orderID, partialAtMillis: partial ? (voided.voidedTimeMillis ?? "0") : nil),
                appID: appID,
                type: notification.kind, subtype: nil, environment: nil, signedAt: voidedAt, payload: payload))
    }
}
