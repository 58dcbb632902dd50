import Foundation
import ShopkeeperModels

/// What changed between two statuses of one subscription, as events in the order they happened.
enum SubscriptionChange {
    static func events(from old: SubscriptionStatus?, to new: SubscriptionStatus) -> [EventType] {
        guard let old else {
            var events: [EventType] = [new.periodType == .trial ? .trialStarted : .subscriptionStarted]
            if new.willRenew == false && new.state.grantsAccess { events.append(.cancellation) }
            events += endings(from: nil, to: new)
            return events
        }
        var events: [EventType] = []
        if old.transactionID != new.transactionID, new.state.grantsAccess || new.expiresAt > old.expiresAt {
            if old.storeProductID != new.storeProductID {
                events.append(.productChange)
            } else if old.periodType == .trial && new.periodType != .trial {
                events.append(.trialConverted)
            } else {
                events.append(.renewal)
            }
        }
        switch (old.willRenew, new.willRenew) {
        case (true, false), (nil, false):
            if new.state.grantsAccess || new.state == .billingRetry { events.append(.cancellation) }
        case (false, true): events.append(.uncancellation)
        default: break
        }
        if old.state != new.state { events += endings(from: old, to: new) }
        return events
    }

    /// Events of a move into a state that is not a new period.
    private static func endings(from old: SubscriptionStatus?, to new: SubscriptionStatus) -> [EventType] {
        let hadBillingTrouble = old.map { $0.state == .gracePeriod || $0.state == .billingRetry } ?? false
        switch new.state {
        case .gracePeriod:
            return hadBillingTrouble ? [] : [.billingIssue, .gracePeriodStarted]
        case .billingRetry:
            return hadBillingTrouble ? [] : [.billingIssue]
        case .expired:
            return [(old?.periodType ?? new.periodType) == .trial ? .trialExpired : .expiration]
        case .refunded, .revoked:
            // The revoked transaction itself reaches entitlements, which writes the refund or revocation event.
            return []
        case .trial, .active, .paused:
            return []
        }
    }
}
