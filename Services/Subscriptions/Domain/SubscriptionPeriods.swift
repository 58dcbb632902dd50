import Foundation
import ShopkeeperModels

/// Turns store transactions into the periods of a timeline.
enum SubscriptionPeriods {
    /// The period a transaction of an auto-renewable product paid for; `nil` when the store gave no end.
    static func period(of transaction: StoreTransaction, product: SubscriptionProduct) -> SubscriptionFacts.Period? {
        guard let ends = transaction.expiresDate else { return nil }
        let kind: SubscriptionFacts.RevocationKind? =
            transaction.revocationDate == nil
            ? nil : transaction.ownershipType == .familyShared ? .revoked : .refunded
        return SubscriptionFacts.Period(
            transactionID: transaction.transactionID, productID: product.productID,
            storeProductID: transaction.storeProductID, periodType: periodType(of: transaction.offer),
            startsAt: transaction.purchaseDate, endsAt: ends, revokedAt: transaction.revocationDate,
            revocationKind: kind, revocationReversedAt: transaction.revocationReversedAt)
    }

    /// A free-trial offer makes a trial period, another introductory offer an intro period.
    static func periodType(of offer: StoreOffer?) -> SubscriptionPeriodType {
        guard let offer else { return .normal }
        if offer.discountType?.lowercased() == "free_trial" { return .trial }
        return offer.type.lowercased() == "introductory" ? .intro : .normal
    }
}
