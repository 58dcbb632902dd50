import Foundation
import ShopkeeperStores

/// What Google Play does on its own with subscriptions, and the real-time developer notifications each change
/// sends. `subscriptionsv2.get` answers from the same record, so it always agrees with the notifications.
extension SandboxStore {
    /// Records a purchase and its notification: `ONE_TIME_PRODUCT_PURCHASED` or `SUBSCRIPTION_PURCHASED` (none yet
    /// for a pending purchase: completing it sends them).
    func purchaseGoogle(_ draft: GooglePurchaseDraft, at now: Date = Date()) throws -> (
        GooglePurchaseRecord, [GoogleEvent]
    ) {
        var record = try addGooglePurchase(draft)
        if record.kind == .subscription, let expiry = record.expiryTime, expiry > now.appleMilliseconds {
            record = try updatePurchase(record.purchaseToken) { $0.periodMilliseconds = expiry - $0.purchaseTime }
        }
        return (record, record.state == .pending ? [] : [Self.purchasedEvent(record, at: now)])
    }

    /// Completes a pending purchase and sends what its purchase would have sent.
    func completeGoogleNotifying(token: String, at now: Date = Date()) throws -> (GooglePurchaseRecord, [GoogleEvent]) {
        let record = try completeGooglePurchase(token: token)
        return (record, [Self.purchasedEvent(record, at: now)])
    }

    /// A pending purchase is cancelled before it was paid (`ONE_TIME_PRODUCT_CANCELED`, or
    /// `SUBSCRIPTION_PENDING_PURCHASE_CANCELED`).
    func cancelPendingGoogle(token: String, at now: Date = Date()) throws -> (GooglePurchaseRecord, [GoogleEvent]) {
        let record = try updatePurchase(token) { record in
            guard record.state == .pending else { throw SandboxStoreError.invalidPurchaseState("not pending") }
            record.state = .canceled
            record.autoRenewing = false
            record.ended = true
        }
        let event: GoogleEvent =
            record.kind == .subscription
            ? .subscription(.pendingPurchaseCanceled, record, at: now) : .oneTime(.canceled, record, at: now)
        return (record, [event])
    }

    static func purchasedEvent(_ record: GooglePurchaseRecord, at now: Date) -> GoogleEvent {
        record.kind == .subscription
            ? .subscription(.purchased, record, at: now) : .oneTime(.purchased, record, at: now)
    }

    /// Refunds a purchase (``refundGooglePurchase(token:source:reason:at:)``) and says so: a subscription is revoked
    /// (`SUBSCRIPTION_REVOKED`), and every refund is a voided purchase.
    func refundGoogleNotifying(token: String, source: Int, reason: Int, at now: Date = Date()) throws -> (
        GooglePurchaseRecord, [GoogleEvent]
    ) {
        let record = try refundGooglePurchase(token: token, source: source, reason: reason, at: now)
        var events: [GoogleEvent] = []
        if record.kind == .subscription { events.append(.subscription(.revoked, record, at: now)) }
        events.append(.voided(record, at: now))
        return (record, events)
    }

    /// Refunds `units` of a multi-quantity one-time purchase (``refundGoogleUnits(token:units:source:reason:at:)``)
    /// and tells of it with a voided-purchase notification whose `refundType` is 2 (quantity-based partial refund).
    func refundGoogleUnitsNotifying(token: String, units: Int, source: Int, reason: Int, at now: Date = Date()) throws
        -> (GooglePurchaseRecord, [GoogleEvent])
    {
        let record = try refundGoogleUnits(token: token, units: units, source: source, reason: reason, at: now)
        return (record, [.voided(record, at: now, refundType: .quantityBasedPartialRefund)])
    }

    /// The customer turns auto-renew off (`SUBSCRIPTION_CANCELED`: paid up until expiry) or back on before expiry
    /// (`SUBSCRIPTION_RESTARTED`).
    func setGoogleAutoRenew(token: String, enabled: Bool, at now: Date = Date()) throws -> (
        GooglePurchaseRecord, [GoogleEvent]
    ) {
        let before = try clockSubscription(token)
        guard before.ended != true, !before.voided else {
            throw SandboxStoreError.invalidSubscriptionState("The subscription has ended.")
        }
        guard before.autoRenewing != enabled else { return (before, []) }
        let record = try updatePurchase(token) { $0.autoRenewing = enabled }
        return (record, [.subscription(enabled ? .restarted : .canceled, record, at: now)])
    }

    /// `fails` true: the next renewals fail; false: billing works again, and a subscription in grace period or on
    /// account hold recovers now (`SUBSCRIPTION_RECOVERED`).
    func setGoogleBilling(token: String, fails: Bool, at now: Date = Date()) throws -> (
        GooglePurchaseRecord, [GoogleEvent]
    ) {
        let before = try clockSubscription(token)
        var record = try updatePurchase(token) { $0.billingFails = fails }
        guard !fails, before.ended != true, !before.voided, before.graceUntil != nil || before.holdUntil != nil else {
            return (record, [])
        }
        record = try renewGoogle(token, from: now)
        return (record, [.subscription(.recovered, record, at: now)])
    }

    /// Ends the subscription's current stage now (its period, grace period or account hold) and runs what follows.
    func advanceGoogle(token: String, at now: Date = Date()) throws -> (GooglePurchaseRecord, [GoogleEvent]) {
        let before = try clockSubscription(token)
        guard before.ended != true, !before.voided else {
            throw SandboxStoreError.invalidSubscriptionState("The subscription has ended; buy it again.")
        }
        let milliseconds = now.appleMilliseconds
        _ = try updatePurchase(token) { record in
            if record.periodMilliseconds == nil {
                record.periodMilliseconds = max(1000, (record.expiryTime ?? record.purchaseTime) - record.purchaseTime)
            }
            if let hold = record.holdUntil, hold > milliseconds { record.holdUntil = milliseconds }
            if let grace = record.graceUntil, grace > milliseconds { record.graceUntil = milliseconds }
            if let expiry = record.expiryTime, expiry > milliseconds { record.expiryTime = milliseconds }
        }
        return try stepGoogle(token, at: now)
    }

    /// The customer switches to another subscription product (an upgrade or downgrade, charged at once): a new
    /// purchase token whose `linkedPurchaseToken` is the old one (`SUBSCRIPTION_PURCHASED`), and the old subscription
    /// ends now, replaced (`SUBSCRIPTION_EXPIRED` in `subscriptionsv2`, no notification of its own).
    func changeGoogleProduct(token: String, to productId: String, basePlanId: String?, at now: Date = Date()) throws
        -> (GooglePurchaseRecord, [GoogleEvent])
    {
        let old = try clockSubscription(token)
        guard old.ended != true, !old.voided, old.state == .purchased,
            old.subscriptionState(at: now) != .expired
        else { throw SandboxStoreError.invalidSubscriptionState("Only a subscription in service can change its plan.") }
        let milliseconds = now.appleMilliseconds
        let period = old.periodMilliseconds ?? max(1000, (old.expiryTime ?? old.purchaseTime) - old.purchaseTime)
        _ = try updatePurchase(token) {
            $0.ended = true
            $0.autoRenewing = false
            $0.graceUntil = nil
            $0.holdUntil = nil
            $0.expiryTime = min($0.expiryTime ?? milliseconds, milliseconds)
        }
        var record = try addGooglePurchase(
            GooglePurchaseDraft(
                packageName: old.packageName, productId: productId, kind: .subscription, quantity: 1, pending: false,
                obfuscatedAccountId: old.obfuscatedAccountId, test: old.test, purchaseTime: now,
                expiryTime: Date(appleMilliseconds: milliseconds + period), basePlanId: basePlanId ?? old.basePlanId,
                regionCode: old.regionCode))
        record = try updatePurchase(record.purchaseToken) {
            $0.linkedPurchaseToken = token
            $0.periodMilliseconds = period
            $0.billingFails = old.billingFails
        }
        return (record, [.subscription(.purchased, record, at: now)])
    }

    /// Subscriptions whose period, grace period or account hold may have ended by `now`.
    func googleSubscriptionsDue(at now: Date) -> [String] {
        let milliseconds = now.appleMilliseconds
        return state.googlePurchases.compactMap { record in
            guard record.kind == .subscription, record.periodMilliseconds != nil, record.ended != true,
                !record.voided, record.state == .purchased, let expiry = record.expiryTime, expiry <= milliseconds
            else { return nil }
            if let hold = record.holdUntil, hold > milliseconds, record.billingFails == true { return nil }
            return record.purchaseToken
        }
    }

    /// One stage of a subscription whose period ended, as Play runs it: auto-renew off: `SUBSCRIPTION_EXPIRED`;
    /// billing works: `SUBSCRIPTION_RENEWED` (or `SUBSCRIPTION_RECOVERED` out of grace period or account hold);
    /// billing fails: `SUBSCRIPTION_IN_GRACE_PERIOD` when the app has one, then `SUBSCRIPTION_ON_HOLD`, then
    /// `SUBSCRIPTION_EXPIRED` when the account hold ends.
    func stepGoogle(_ token: String, at now: Date = Date()) throws -> (GooglePurchaseRecord, [GoogleEvent]) {
        let record = try clockSubscription(token)
        let milliseconds = now.appleMilliseconds
        guard record.ended != true, !record.voided, record.state == .purchased, let expiry = record.expiryTime,
            expiry <= milliseconds
        else { return (record, []) }
        let failing = record.billingFails == true
        let settings = appSettings(google: record.packageName)
        if record.graceUntil != nil || record.holdUntil != nil {
            if !failing {
                let renewed = try renewGoogle(token, from: now)
                return (renewed, [.subscription(.recovered, renewed, at: now)])
            }
            if record.graceUntil != nil {
                return try holdGoogle(token, from: expiry, settings: settings, at: now)
            }
            guard let hold = record.holdUntil, hold <= milliseconds else { return (record, []) }
            let ended = try updatePurchase(token) {
                $0.ended = true
                $0.holdUntil = nil
                $0.autoRenewing = false
            }
            return (ended, [.subscription(.expired, ended, at: now)])
        }
        if !record.autoRenewing {
            let ended = try updatePurchase(token) { $0.ended = true }
            return (ended, [.subscription(.expired, ended, at: now)])
        }
        if failing {
            if let grace = settings.gracePeriod?.milliseconds(scaledBy: timeScale, from: now), grace > 0 {
                let inGrace = try updatePurchase(token) {
                    $0.graceUntil = expiry + grace
                    $0.expiryTime = expiry + grace
                }
                return (inGrace, [.subscription(.inGracePeriod, inGrace, at: now)])
            }
            return try holdGoogle(token, from: expiry, settings: settings, at: now)
        }
        let period = record.periodMilliseconds ?? 1000
        let start = expiry + period > milliseconds ? expiry : milliseconds
        let renewed = try renewGoogle(token, from: Date(appleMilliseconds: start))
        return (renewed, [.subscription(.renewed, renewed, at: now)])
    }

    /// Account hold from `start` (no access); with no hold configured the subscription expires.
    private func holdGoogle(_ token: String, from start: Int64, settings: StoreAppSettings, at now: Date) throws -> (
        GooglePurchaseRecord, [GoogleEvent]
    ) {
        let hold =
            (settings.accountHold ?? StoreAppSettings.googleAccountHold)
            .map { $0.milliseconds(scaledBy: timeScale, from: now) } ?? 0
        let milliseconds = now.appleMilliseconds
        let record = try updatePurchase(token) {
            $0.graceUntil = nil
            $0.expiryTime = min($0.expiryTime ?? milliseconds, milliseconds)
            $0.holdUntil = max(start, milliseconds) + hold
        }
        return (record, [.subscription(.onHold, record, at: now)])
    }

    /// A new period from `start` (a new order, `..N`), out of grace period and account hold.
    private func renewGoogle(_ token: String, from start: Date) throws -> GooglePurchaseRecord {
        try updatePurchase(token) { record in
            let renewals = (record.renewals ?? 0) + 1
            record.orderId = "\(record.initialOrderId)..\(renewals - 1)"
            record.renewals = renewals
            record.graceUntil = nil
            record.holdUntil = nil
            record.expiryTime = start.appleMilliseconds + (record.periodMilliseconds ?? 1000)
        }
    }

    /// The subscription `token` names.
    private func clockSubscription(_ token: String) throws -> GooglePurchaseRecord {
        guard let record = googlePurchase(token: token) else { throw SandboxStoreError.purchaseNotFound(token) }
        guard record.kind == .subscription else {
            throw SandboxStoreError.invalidPurchaseState("only a subscription renews")
        }
        return record
    }
}
