import Foundation
import ShopkeeperModels

/// Everything known about one auto-renewable subscription: its periods (one per store transaction) and the
/// newest renewal facts the store reported. Its state follows from these and the time alone
/// (``SubscriptionTimeline/status(of:at:)``), never from the server's clock alone.
struct SubscriptionFacts: Sendable, Equatable {
    var periods: [Period]
    var renewal: Renewal

    /// The time one store transaction paid for (or gave as a trial or intro offer).
    struct Period: Sendable, Equatable {
        var transactionID: String
        var productID: String
        var storeProductID: String
        var periodType: SubscriptionPeriodType
        var startsAt: Date
        var endsAt: Date
        var revokedAt: Date?
        /// `refunded` or `revoked` (Family Sharing ended).
        var revocationKind: RevocationKind?
        /// When the store reversed a refund or revocation of the period (Apple's `REFUND_REVERSED`).
        var revocationReversedAt: Date? = nil
    }

    /// How a period was taken back.
    enum RevocationKind: String, Sendable, Equatable {
        case refunded
        case revoked
    }

    /// The newest renewal facts (Apple's renewal info, Play's subscription state).
    struct Renewal: Sendable, Equatable {
        var observedAt: Date?
        var willRenew: Bool?
        var renewsIntoStoreProductID: String?
        var graceExpiresAt: Date?
        var billingRetry = false
        var paused = false
        var expirationReason: String?
        /// When the store said the current period was over (its status), if it did.
        var endedAt: Date?
    }

    /// The period that governs: the one that started last (a renewal, an upgrade's new transaction).
    var current: Period? {
        periods.max { ($0.startsAt, $0.transactionID) < ($1.startsAt, $1.transactionID) }
    }

    /// Adds or updates a period; a revocation, once known, stays.
    mutating func record(_ period: Period) {
        guard let index = periods.firstIndex(where: { $0.transactionID == period.transactionID }) else {
            periods.append(period)
            return
        }
        let known = periods[index]
        var merged = period
        merged.endsAt = max(known.endsAt, period.endsAt)
        merged.revocationReversedAt = [known.revocationReversedAt, period.revocationReversedAt].compactMap { $0 }.max()
        // A revocation, once known, stays until the store reverses it; one dated at or before the reversal is the
        // reversed one.
        if let revokedAt = known.revokedAt ?? period.revokedAt,
            revokedAt > (merged.revocationReversedAt ?? .distantPast)
        {
            merged.revokedAt = revokedAt
            merged.revocationKind = known.revokedAt != nil ? known.revocationKind : period.revocationKind
        } else {
            merged.revokedAt = nil
            merged.revocationKind = nil
        }
        periods[index] = merged
    }

    /// Takes renewal facts unless newer ones were applied already; returns whether they were taken.
    @discardableResult
    mutating func record(_ facts: SubscriptionRenewalFacts) -> Bool {
        if let observed = renewal.observedAt, facts.observedAt < observed { return false }
        renewal.observedAt = facts.observedAt
        if let willRenew = facts.willRenew { renewal.willRenew = willRenew }
        renewal.renewsIntoStoreProductID = facts.renewsIntoStoreProductID ?? renewal.renewsIntoStoreProductID
        renewal.graceExpiresAt = facts.gracePeriodExpiresDate
        if let retry = facts.isInBillingRetry { renewal.billingRetry = retry }
        if let paused = facts.isPaused { renewal.paused = paused }
        if let reason = facts.expirationReason { renewal.expirationReason = reason }
        if let ended = facts.periodEnded { renewal.endedAt = ended ? facts.observedAt : nil }
        return true
    }
}

/// Where a subscription stands at one moment, and when that changes by itself.
struct SubscriptionStatus: Sendable, Equatable {
    var state: SubscriptionState
    var productID: String
    var storeProductID: String
    var periodType: SubscriptionPeriodType
    var transactionID: String
    var startedAt: Date
    /// When the governing period started: billing trouble observed before it belongs to an earlier period.
    var periodStartedAt: Date
    var expiresAt: Date
    /// When the entitlements end (the period's end, or the grace period's); the revocation when revoked.
    var accessUntil: Date
    /// The next moment the state changes without news (a period or a grace period ends); `nil` when none.
    var nextChangeAt: Date?
    var willRenew: Bool?
    var renewsIntoStoreProductID: String?
    var graceExpiresAt: Date?
    var billingRetry: Bool
    var expirationReason: String?
    var revokedAt: Date?
}

/// The state machine of an auto-renewable subscription, as the stores document it:
///
/// - the latest period's revocation ends it at once: `refunded`, or `revoked` when Family Sharing ended;
/// - inside the latest period: `trial` for a free-trial period, else `active`;
/// - after it: `paused` (Play), `grace_period` while the store's grace period lasts (still in service),
///   `billing_retry` while the store retries billing (out of service), else `expired`.
///
/// Billing trouble reported before the latest period began belongs to an earlier period and is ignored: the
/// renewal that started the latest period resolved it.
///
/// SQL has the same rule once, `subscriptions.effective_state` (migration `0007_effective_state`), for the readers that
/// need the state at read time (`subscriptions_v1`, entitlements' customer info, the subscriptions report);
/// `EffectiveStateTests` holds the two equal case by case. A change of the rule here needs a new migration there.
enum SubscriptionTimeline {
    static func status(of facts: SubscriptionFacts, at now: Date) -> SubscriptionStatus? {
        guard let current = facts.current else { return nil }
        let renewal = facts.renewal
        let started = facts.periods.map(\.startsAt).min() ?? current.startsAt
        let troubleIsCurrent = (renewal.observedAt ?? .distantPast) >= current.startsAt
        // The period ends at its end, or earlier when the store said it was over (the store's data rules).
        let end = min(current.endsAt, renewal.endedAt.flatMap { $0 >= current.startsAt ? $0 : nil } ?? current.endsAt)
        let grace = renewal.graceExpiresAt.flatMap { $0 > end && troubleIsCurrent ? $0 : nil }
        let billingRetry = renewal.billingRetry && troubleIsCurrent
        var status = SubscriptionStatus(
            state: .expired, productID: current.productID, storeProductID: current.storeProductID,
            periodType: current.periodType, transactionID: current.transactionID, startedAt: started,
            periodStartedAt: current.startsAt, expiresAt: end, accessUntil: grace ?? end, nextChangeAt: nil,
            willRenew: renewal.willRenew,
            renewsIntoStoreProductID: renewal.renewsIntoStoreProductID == current.storeProductID
                ? nil : renewal.renewsIntoStoreProductID,
            graceExpiresAt: grace, billingRetry: billingRetry, expirationReason: nil, revokedAt: nil)
        if let revokedAt = current.revokedAt {
            status.state = current.revocationKind == .revoked ? .revoked : .refunded
            status.accessUntil = min(revokedAt, end)
            status.revokedAt = revokedAt
            status.willRenew = false
            return status
        }
        if now < end {
            status.state = current.periodType == .trial ? .trial : .active
            status.nextChangeAt = end
        } else if renewal.paused && troubleIsCurrent {
            status.state = .paused
        } else if let grace, now < grace {
            status.state = .gracePeriod
            status.nextChangeAt = grace
        } else if billingRetry {
            status.state = .billingRetry
        } else {
            status.state = .expired
        }
        if status.state == .expired || status.state == .billingRetry || status.state == .paused {
            status.expirationReason =
                renewal.expirationReason
                ?? (billingRetry
                    ? "billing_error"
                    : renewal.willRenew == false
                        ? "voluntary" : nil)
        } else if renewal.willRenew == false {
            status.expirationReason = renewal.expirationReason ?? "voluntary"
        }
        return status
    }
}
