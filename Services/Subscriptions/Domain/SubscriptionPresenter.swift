import Foundation
import ShopkeeperModels

/// Renders a subscription in the shape customer info uses.
enum SubscriptionPresenter {
    static func info(_ subscription: StoredSubscription, status: SubscriptionStatus) -> SubscriptionInfo {
        SubscriptionInfo(
            productID: status.productID, storeProductID: status.storeProductID,
            type: ProductType.autoRenewable.rawValue,
            store: subscription.store,
            environment: StoreEnvironment(rawValue: subscription.environment) ?? .production,
            originalTransactionID: subscription.originalTransactionID, state: status.state,
            active: status.state.grantsAccess, periodType: status.periodType, startedAt: status.startedAt,
            expiresAt: status.expiresAt, willRenew: status.willRenew,
            renewsIntoStoreProductID: status.renewsIntoStoreProductID, gracePeriodExpiresAt: status.graceExpiresAt,
            expirationReason: status.expirationReason,
            refundedAt: status.state == .refunded ? status.revokedAt : nil,
            revokedAt: status.state == .revoked ? status.revokedAt : nil)
    }
}
