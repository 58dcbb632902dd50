import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// One billing attempt made on request (`advance`): whether it fails (`nil`: as the subscription's setting says) and
/// the grace period a failure gives (`nil`: the app's).
struct AppleAttempt: Sendable {
    var fails: Bool?
    var graceMilliseconds: Int64?
}

extension SandboxStore {
    /// One stage of a subscription whose period ended, as the App Store runs it:
    /// - period over, auto-renew off: `EXPIRED` `VOLUNTARY`;
    /// - period over, billing works: a new period begins (`DID_RENEW`, into the downgraded product if one is chosen);
    /// - period over, billing fails: billing retry begins, in a grace period when the app has one
    ///   (`DID_FAIL_TO_RENEW`, subtype `GRACE_PERIOD` then);
    /// - in billing retry, a retry (`attempt`, from `advance`) that succeeds: a new period begins now (`DID_RENEW`
    ///   `BILLING_RECOVERY`); the clock alone (`attempt` `nil`) never recovers;
    /// - grace period over: `GRACE_PERIOD_EXPIRED` (billing retry goes on);
    /// - billing retry over: `EXPIRED` `BILLING_RETRY`.
    /// Does not save; the caller commits.
    func stepApple(_ chain: String, attempt: AppleAttempt?, at now: Date) throws -> [AppleEvent] {
        guard let index = chainLatest[chain], var schedule = state.appleSchedules[chain], !schedule.ended else {
            return []
        }
        let latest = state.appleTransactions[index]
        let milliseconds = now.appleMilliseconds
        guard !latest.isRevoked, let expires = latest.expiresDate, expires <= milliseconds else { return [] }
        if latest.isInBillingRetryPeriod != true {
            if latest.autoRenewStatus == 0 {
                state.appleTransactions[index].expirationIntent = 1
                schedule.ended = true
                setSchedule(schedule, for: chain)
                return [event(.expired, .voluntary, transaction: state.appleTransactions[index], at: now)]
            }
            if attempt?.fails ?? schedule.billingFails {
                let settings = appSettings(apple: latest.bundleId)
                let grace =
                    attempt?.graceMilliseconds
                    ?? settings.gracePeriod.map { $0.milliseconds(scaledBy: timeScale, from: now) }
                let retry =
                    (settings.billingRetryPeriod ?? StoreAppSettings.appleBillingRetry)
                    .map { $0.milliseconds(scaledBy: timeScale, from: now) } ?? 0
                state.appleTransactions[index].isInBillingRetryPeriod = true
                state.appleTransactions[index].gracePeriodExpiresDate = grace.map { expires + $0 }
                schedule.billingRetryEndsAt = expires + max(retry, grace ?? 0)
                schedule.graceExpiredAnnounced = false
                setSchedule(schedule, for: chain)
                return [
                    event(
                        .didFailToRenew, grace == nil ? nil : .gracePeriod, transaction: state.appleTransactions[index],
                        at: now)
                ]
            }
            // Periods follow each other; a store that was stopped for longer than a period starts afresh now.
            let start = expires + schedule.periodMilliseconds > milliseconds ? expires : milliseconds
            return try renewApple(chain, from: Date(appleMilliseconds: start), recovered: false, at: now)
        }
        if let attempt, !(attempt.fails ?? schedule.billingFails) {
            return try renewApple(chain, from: now, recovered: true, at: now)
        }
        if let grace = latest.gracePeriodExpiresDate, grace <= milliseconds, !schedule.graceExpiredAnnounced {
            schedule.graceExpiredAnnounced = true
            setSchedule(schedule, for: chain)
            return [event(.gracePeriodExpired, transaction: latest, at: now)]
        }
        if schedule.billingRetryEndsAt ?? expires <= milliseconds {
            state.appleTransactions[index].isInBillingRetryPeriod = false
            state.appleTransactions[index].gracePeriodExpiresDate = nil
            state.appleTransactions[index].expirationIntent = 2
            schedule.ended = true
            setSchedule(schedule, for: chain)
            return [event(.expired, .billingRetry, transaction: state.appleTransactions[index], at: now)]
        }
        return []
    }

    /// A new period from `start`, of the subscription's period length, in the product it renews into.
    func renewApple(_ chain: String, from start: Date, recovered: Bool, at now: Date) throws -> [AppleEvent] {
        guard let index = chainLatest[chain], var schedule = state.appleSchedules[chain] else { return [] }
        let latest = state.appleTransactions[index]
        let productId = schedule.renewsInto ?? latest.productId
        state.appleTransactions[index].isInBillingRetryPeriod = false
        state.appleTransactions[index].gracePeriodExpiresDate = nil
        schedule.renewsInto = nil
        schedule.billingRetryEndsAt = nil
        schedule.graceExpiredAnnounced = false
        setSchedule(schedule, for: chain)
        let record = try addAppleTransaction(
            renewalDraft(of: latest, productId: productId, from: start, length: schedule.periodMilliseconds))
        return [event(.didRenew, recovered ? .billingRecovery : nil, transaction: record, at: now)]
    }

    /// The draft of the transaction that follows `latest`.
    func renewalDraft(of latest: AppleTransactionRecord, productId: String, from start: Date, length: Int64)
        -> AppleTransactionDraft
    {
        AppleTransactionDraft(
            bundleId: latest.bundleId, productId: productId, type: .autoRenewable, quantity: 1,
            environment: latest.environment, appAccountToken: latest.appAccountToken, purchaseDate: start,
            expiresDate: Date(appleMilliseconds: start.appleMilliseconds + max(1000, length)), period: nil,
            offerType: nil, offerIdentifier: nil, offerDiscountType: nil, offerPeriod: nil, price: latest.price,
            currency: latest.currency, storefront: latest.storefront, storefrontId: latest.storefrontId,
            originalTransactionId: latest.originalTransactionId, appAppleId: latest.appAppleId,
            subscriptionGroupIdentifier: latest.subscriptionGroupIdentifier, appVersion: nil)
    }

    /// Refunds or revokes a transaction and says so (`REFUND` or `REVOKE`); a subscription's clock stops.
    func revokeAppleNotifying(id: String, reason: Int, kind: String, at now: Date = Date()) throws -> (
        AppleTransactionRecord, [AppleEvent]
    ) {
        let record = try revokeAppleTransaction(id: id, reason: reason, kind: kind, at: now)
        if record.type == .autoRenewable, var schedule = state.appleSchedules[record.originalTransactionId],
            latestTransaction(ofSubscription: record.originalTransactionId)?.transactionId == record.transactionId
        {
            schedule.ended = true
            setSchedule(schedule, for: record.originalTransactionId)
            try commit()
        }
        return (record, [event(kind == "refund" ? .refund : .revoke, transaction: record, at: now)])
    }

    /// Changes the renewal state (``updateRenewal(subscription:autoRenew:billingRetry:gracePeriodExpires:)``) and
    /// says what changed: `DID_CHANGE_RENEWAL_STATUS` when auto-renew flips, `DID_FAIL_TO_RENEW` (with
    /// `GRACE_PERIOD` when a grace period is given) when billing starts failing.
    func updateRenewalNotifying(
        subscription id: String, autoRenew: Bool?, billingRetry: Bool?, gracePeriodExpires: Date?, at now: Date = Date()
    ) throws -> (AppleTransactionRecord, [AppleEvent]) {
        let before = try subscriptionForClock(id)
        let previous = state.appleTransactions[before.index]
        let latest = try updateRenewal(
            subscription: id, autoRenew: autoRenew, billingRetry: billingRetry, gracePeriodExpires: gracePeriodExpires)
        if let billingRetry, var schedule = state.appleSchedules[latest.originalTransactionId] {
            schedule.billingFails = billingRetry || gracePeriodExpires != nil
            setSchedule(schedule, for: latest.originalTransactionId)
            try commit()
        }
        var events: [AppleEvent] = []
        if let autoRenew, (previous.autoRenewStatus != 0) != autoRenew {
            events.append(
                event(
                    .didChangeRenewalStatus, autoRenew ? .autoRenewEnabled : .autoRenewDisabled, transaction: latest,
                    at: now))
        }
        if gracePeriodExpires != nil {
            events.append(event(.didFailToRenew, .gracePeriod, transaction: latest, at: now))
        } else if billingRetry == true, previous.isInBillingRetryPeriod != true {
            events.append(event(.didFailToRenew, transaction: latest, at: now))
        }
        return (latest, events)
    }

    /// Keeps consumption information an app sent.
    func recordConsumption(_ record: AppleConsumptionRecord) throws {
        state.appleConsumption.append(record)
        try commit()
    }

    /// The consumption information received for a transaction, oldest first.
    func consumption(transactionId: String) -> [AppleConsumptionRecord] {
        state.appleConsumption.filter { $0.transactionId == transactionId }
    }

    /// The subscription settings of an App Store app (no grace period, 60 days of billing retry by default).
    func appSettings(apple bundleId: String) -> StoreAppSettings {
        state.appSettings["apple:\(bundleId)"] ?? StoreAppSettings()
    }

    /// The subscription settings of a Play app (no grace period, 30 days of account hold by default).
    func appSettings(google packageName: String) -> StoreAppSettings {
        state.appSettings["google:\(packageName)"] ?? StoreAppSettings()
    }

    /// Replaces an app's subscription settings (`key` is `apple:<bundle id>` or `google:<package name>`).
    func setAppSettings(_ settings: StoreAppSettings, key: String) throws {
        state.appSettings[key] = settings
        try commit()
    }
}
