import Foundation
import ShopkeeperStores

/// What the App Store does on its own: renewals at the end of a period, failed billing into grace period and billing
/// retry, expiry; and what a purchase, a refund or a change of plan tells the app. Each change returns the
/// notifications it owes, with the records as they are right after it.
extension SandboxStore {
    /// Records a purchase (or a manual renewal) and the notification it sends: `ONE_TIME_CHARGE` for what does not
    /// renew; `SUBSCRIBED` `INITIAL_BUY` for a new subscription; for a purchase naming an existing subscription,
    /// `DID_CHANGE_RENEWAL_PREF` `UPGRADE` to another product, `DID_RENEW` `BILLING_RECOVERY` out of billing retry,
    /// `SUBSCRIBED` `RESUBSCRIBE` after it ended, else `DID_RENEW`.
    func purchaseApple(_ draft: AppleTransactionDraft, at now: Date = Date()) throws -> (
        AppleTransactionRecord, [AppleEvent]
    ) {
        let previous = draft.originalTransactionId.flatMap { id in
            appleTransaction(id: id).flatMap { latestTransaction(ofSubscription: $0.originalTransactionId) }
        }
        let record = try addAppleTransaction(draft)
        guard record.type == .autoRenewable else {
            return (record, [AppleEvent(.oneTimeCharge, transaction: record, at: now)])
        }
        let chain = record.originalTransactionId
        var kind: (AppleNotificationType, AppleNotificationSubtype?) = (.subscribed, .initialBuy)
        if let previous, let index = appleIndex[previous.transactionId] {
            let ended =
                state.appleSchedules[chain]?.ended == true || previous.isRevoked
                || previous.subscriptionStatus(at: Date(appleMilliseconds: record.purchaseDate)) == .expired
            if previous.productId != record.productId && !ended {
                kind = (.didChangeRenewalPref, .upgrade)
                state.appleTransactions[index].isUpgraded = true
                // The period upgraded out of ends where the new one begins.
                if let expires = previous.expiresDate, expires > record.purchaseDate {
                    state.appleTransactions[index].expiresDate = record.purchaseDate
                }
            } else if previous.isInBillingRetryPeriod == true && !ended {
                kind = (.didRenew, .billingRecovery)
            } else if ended {
                kind = (.subscribed, .resubscribe)
            } else {
                kind = (.didRenew, nil)
            }
            state.appleTransactions[index].isInBillingRetryPeriod = false
            state.appleTransactions[index].gracePeriodExpiresDate = nil
        }
        if let expires = record.expiresDate, expires > now.appleMilliseconds {
            var schedule =
                state.appleSchedules[chain] ?? AppleRenewalSchedule(periodMilliseconds: expires - record.purchaseDate)
            schedule.periodMilliseconds = max(1000, expires - record.purchaseDate)
            schedule.ended = false
            schedule.billingRetryEndsAt = nil
            schedule.graceExpiredAnnounced = false
            if previous?.productId != record.productId { schedule.renewsInto = nil }
            setSchedule(schedule, for: chain)
        }
        try commit()
        return (record, [event(kind.0, kind.1, transaction: record, at: now)])
    }

    /// A notification about `transaction`, with its subscription's renewal info when it is one.
    func event(
        _ type: AppleNotificationType, _ subtype: AppleNotificationSubtype? = nil,
        transaction: AppleTransactionRecord, at now: Date
    ) -> AppleEvent {
        guard transaction.type == .autoRenewable else {
            return AppleEvent(type, subtype, transaction: transaction, at: now)
        }
        let chain = transaction.originalTransactionId
        return AppleEvent(
            type, subtype, transaction: transaction, latest: latestTransaction(ofSubscription: chain),
            renewsInto: state.appleSchedules[chain]?.renewsInto, at: now)
    }

    func setSchedule(_ schedule: AppleRenewalSchedule, for chain: String) {
        state.appleSchedules[chain] = schedule
    }

    /// The product a subscription renews into when the customer downgraded.
    func renewsInto(_ originalTransactionId: String) -> String? {
        state.appleSchedules[originalTransactionId]?.renewsInto
    }

    /// The latest transaction and schedule of the subscription `id` names (any of its transactions), made when the
    /// subscription had none.
    func subscriptionForClock(_ id: String) throws -> (index: Int, schedule: AppleRenewalSchedule) {
        guard let named = appleTransaction(id: id) else { throw SandboxStoreError.transactionNotFound(id) }
        guard named.type == .autoRenewable, let index = chainLatest[named.originalTransactionId] else {
            throw SandboxStoreError.notRenewable(id)
        }
        let latest = state.appleTransactions[index]
        let length = latest.periodLength ?? ((latest.expiresDate ?? latest.purchaseDate) - latest.purchaseDate)
        return (
            index,
            state.appleSchedules[latest.originalTransactionId] ?? AppleRenewalSchedule(periodMilliseconds: length)
        )
    }

    /// Ends the subscription's current stage now and runs what follows: an active period ends (renewal, failed
    /// billing, or expiry when auto-renew is off); a grace period ends (`GRACE_PERIOD_EXPIRED`); billing retry ends
    /// (`EXPIRED` `BILLING_RETRY`).
    ///
    /// `fails` decides this one attempt (a renewal, or a billing retry) instead of the subscription's billing setting;
    /// `graceMilliseconds` replaces the app's grace period (real time) when this attempt starts billing retry.
    func advanceApple(
        subscription id: String, fails: Bool? = nil, graceMilliseconds: Int64? = nil, at now: Date = Date()
    ) throws -> [AppleEvent] {
        let (index, schedule) = try subscriptionForClock(id)
        let latest = state.appleTransactions[index]
        guard !latest.isRevoked else { throw SandboxStoreError.alreadyRevoked(latest.transactionId) }
        guard !schedule.ended else {
            throw SandboxStoreError.invalidSubscriptionState("The subscription has ended; buy it again to resubscribe.")
        }
        var moved = schedule
        let milliseconds = now.appleMilliseconds
        if let expires = latest.expiresDate, expires > milliseconds {
            state.appleTransactions[index].expiresDate = milliseconds
        } else if latest.isInBillingRetryPeriod == true && (fails ?? schedule.billingFails) {
            if let grace = latest.gracePeriodExpiresDate, grace > milliseconds {
                state.appleTransactions[index].gracePeriodExpiresDate = milliseconds
            } else {
                moved.billingRetryEndsAt = milliseconds
            }
        }
        setSchedule(moved, for: latest.originalTransactionId)
        let events = try stepApple(
            latest.originalTransactionId, attempt: AppleAttempt(fails: fails, graceMilliseconds: graceMilliseconds),
            at: now)
        try commit()
        return events
    }

    /// `fails` true: billing fails at the next renewals; false: it succeeds again, and a subscription in billing retry
    /// recovers now (`DID_RENEW` `BILLING_RECOVERY`).
    func setAppleBilling(subscription id: String, fails: Bool, at now: Date = Date()) throws -> [AppleEvent] {
        let (index, schedule) = try subscriptionForClock(id)
        let latest = state.appleTransactions[index]
        var changed = schedule
        changed.billingFails = fails
        setSchedule(changed, for: latest.originalTransactionId)
        var events: [AppleEvent] = []
        if !fails, latest.isInBillingRetryPeriod == true, !schedule.ended, !latest.isRevoked {
            events = try renewApple(latest.originalTransactionId, from: now, recovered: true, at: now)
        }
        try commit()
        return events
    }

    /// The customer changes plan within the subscription group: an upgrade takes effect now (the current period ends,
    /// a new transaction of `productId` begins: `DID_CHANGE_RENEWAL_PREF` `UPGRADE`); a downgrade at the next renewal
    /// (`DOWNGRADE`); choosing the current product again cancels a pending downgrade (no subtype).
    func changeAppleProduct(subscription id: String, to productId: String, upgrade: Bool, at now: Date = Date()) throws
        -> [AppleEvent]
    {
        let (index, schedule) = try subscriptionForClock(id)
        let latest = state.appleTransactions[index]
        guard !latest.isRevoked, !schedule.ended, latest.subscriptionStatus(at: now) != .expired else {
            throw SandboxStoreError.invalidSubscriptionState("Only a subscription in service can change its plan.")
        }
        var changed = schedule
        let chain = latest.originalTransactionId
        if productId == latest.productId {
            changed.renewsInto = nil
            setSchedule(changed, for: chain)
            try commit()
            return [event(.didChangeRenewalPref, transaction: latest, at: now)]
        }
        if !upgrade {
            changed.renewsInto = productId
            setSchedule(changed, for: chain)
            try commit()
            return [event(.didChangeRenewalPref, .downgrade, transaction: latest, at: now)]
        }
        changed.renewsInto = nil
        setSchedule(changed, for: chain)
        let milliseconds = now.appleMilliseconds
        state.appleTransactions[index].isUpgraded = true
        if let expires = latest.expiresDate, expires > milliseconds {
            state.appleTransactions[index].expiresDate = milliseconds
        }
        state.appleTransactions[index].isInBillingRetryPeriod = false
        state.appleTransactions[index].gracePeriodExpiresDate = nil
        let record = try addAppleTransaction(
            renewalDraft(of: latest, productId: productId, from: now, length: schedule.periodMilliseconds))
        return [event(.didChangeRenewalPref, .upgrade, transaction: record, at: now)]
    }

    /// Subscriptions whose period, grace period or billing retry may have ended by `now`: the ticker steps them.
    func appleSubscriptionsDue(at now: Date) -> [String] {
        let milliseconds = now.appleMilliseconds
        return state.appleSchedules.compactMap { chain, schedule in
            guard !schedule.ended, let index = chainLatest[chain] else { return nil }
            let latest = state.appleTransactions[index]
            guard !latest.isRevoked, let expires = latest.expiresDate, expires <= milliseconds else { return nil }
            return chain
        }
        .sorted()
    }

    /// Runs what is due for one subscription at `now` (at most one stage) and saves it.
    func tickApple(_ chain: String, at now: Date = Date()) throws -> [AppleEvent] {
        let events = try stepApple(chain, attempt: nil, at: now)
        if !events.isEmpty { try commit() }
        return events
    }
}
