import Foundation
import ShopkeeperStores

/// Which App Store Server Notification each sandbox event sends, as the App Store sends them.
enum AppleNotifications {
    /// A new transaction: `SUBSCRIBED` (`INITIAL_BUY`, or `RESUBSCRIBE` after the subscription had ended),
    /// `DID_RENEW` (`BILLING_RECOVERY` after a failed billing), `DID_CHANGE_RENEWAL_PREF` `UPGRADE` when a renewal
    /// moves to another product at once, `ONE_TIME_CHARGE` for everything that is not a subscription.
    static func purchase(
        _ record: AppleTransactionRecord, previous: AppleTransactionRecord?, store: SandboxStore,
        notifier: AppleNotifier
    ) async throws {
        guard record.type == .autoRenewable else {
            try await notifier.notify(.oneTimeCharge, transaction: record)
            return
        }
        let latest = await store.latestTransaction(ofSubscription: record.originalTransactionId) ?? record
        guard let previous else {
            try await notifier.notify(.subscribed, .initialBuy, transaction: record, latest: latest)
            return
        }
        if previous.productId != record.productId {
            try await notifier.notify(.didChangeRenewalPref, .upgrade, transaction: record, latest: latest)
        } else if previous.subscriptionStatus(at: Date(appleMilliseconds: record.purchaseDate)) == .expired {
            try await notifier.notify(.subscribed, .resubscribe, transaction: record, latest: latest)
        } else {
            let recovered = previous.isInBillingRetryPeriod == true
            try await notifier.notify(
                .didRenew, recovered ? .billingRecovery : nil, transaction: record, latest: latest)
        }
    }

    /// What the end of a period sends.
    static func periodEnded(_ end: PeriodEnd, store: SandboxStore, notifier: AppleNotifier) async throws {
        switch end {
        case .renewed(let record, let recovered):
            let latest = await store.latestTransaction(ofSubscription: record.originalTransactionId) ?? record
            try await notifier.notify(
                .didRenew, recovered ? .billingRecovery : nil, transaction: record, latest: latest)
        case .billingFailed(let record, let grace):
            try await notifier.notify(
                .didFailToRenew, grace == nil ? nil : .gracePeriod, transaction: record, latest: record)
        case .graceExpired(let record):
            try await notifier.notify(.gracePeriodExpired, transaction: record, latest: record)
        case .expired(let record, let voluntary):
            try await notifier.notify(
                .expired, voluntary ? .voluntary : .billingRetry, transaction: record, latest: record)
        }
    }
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        switch self {
        case .some(let value): try await transform(value)
        case .none: nil
        }
    }
}
