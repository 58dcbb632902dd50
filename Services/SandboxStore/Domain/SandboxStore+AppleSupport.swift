import Foundation
import ShopkeeperStores

/// Why Apple would not extend a subscription's renewal date.
enum AppleExtensionRefusal: Error, Equatable {
    /// No subscription with that original transaction id for this app in this environment.
    case notFound
    /// Expired, refunded, in billing retry, in a free offer period, or extended twice in the past 365 days.
    case ineligible
}

extension SandboxStore {
    /// The refunded transactions of the customer of `record` (same app and environment; a family revocation is not a
    /// refund), oldest refund first, as Get Refund History lists them.
    func refundedTransactions(of record: AppleTransactionRecord) -> [AppleTransactionRecord] {
        customerTransactions(of: record).enumerated()
            .filter { $0.element.isRevoked && $0.element.revocationKind != "revoke" }
            .sorted { ($0.element.revocationDate ?? 0, $0.offset) < ($1.element.revocationDate ?? 0, $1.offset) }
            .map(\.element)
    }

    /// Extend a Subscription Renewal Date: with Apple's eligibility rules, the subscription of `originalTransactionId`
    /// (of `bundleId`, in `environment`) gets `days` more (compressed by the time scale, as every period) and owes
    /// `RENEWAL_EXTENDED`. Every call extends: Apple does not document that a repeated `requestIdentifier` is
    /// recognised, so the sandbox does not pretend it is.
    func extendAppleRenewal(
        originalTransactionId: String, days: Int, bundleId: String, environment: AppleEnvironment,
        at now: Date = Date()
    ) throws -> (AppleTransactionRecord, [AppleEvent]) {
        guard let named = appleTransaction(id: originalTransactionId),
            named.originalTransactionId == originalTransactionId, named.bundleId == bundleId,
            named.environment == environment
        else { throw AppleExtensionRefusal.notFound }
        guard named.type == .autoRenewable, let latest = latestTransaction(ofSubscription: originalTransactionId),
            latest.subscriptionStatus(at: now) == .active, latest.offerDiscountType != "FREE_TRIAL",
            var schedule = try? subscriptionForClock(originalTransactionId).schedule
        else { throw AppleExtensionRefusal.ineligible }
        let yearAgo = now.appleMilliseconds - 365 * 86_400_000
        let recent = (schedule.extendedAt ?? []).filter { $0 > yearAgo }
        guard recent.count < 2 else { throw AppleExtensionRefusal.ineligible }
        let events = try extendApple(subscription: originalTransactionId, days: days, at: now)
        schedule.extendedAt = recent + [now.appleMilliseconds]
        setSchedule(schedule, for: originalTransactionId)
        try commit()
        guard let extended = latestTransaction(ofSubscription: originalTransactionId) else {
            throw AppleExtensionRefusal.notFound
        }
        return (extended, events)
    }
}
