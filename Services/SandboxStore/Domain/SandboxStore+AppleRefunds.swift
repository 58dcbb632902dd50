import Foundation
import ShopkeeperStores

extension SandboxStore {
    /// Apple reverses a refund (`REFUND_REVERSED`): the transaction is in force again, and a subscription whose
    /// period still runs renews again (auto-renew on) and is moved on by the clock.
    func reverseAppleRefund(id: String, at now: Date = Date()) throws -> [AppleEvent] {
        guard let index = appleIndex[id] else { throw SandboxStoreError.transactionNotFound(id) }
        let record = state.appleTransactions[index]
        guard record.revocationKind == "refund" else {
            throw SandboxStoreError.invalidSubscriptionState(
                "Only a refunded transaction can have its refund reversed.")
        }
        state.appleTransactions[index].revocationDate = nil
        state.appleTransactions[index].revocationReason = nil
        state.appleTransactions[index].revocationKind = nil
        let chain = record.originalTransactionId
        if record.type == .autoRenewable, chainLatest[chain] == index, var schedule = state.appleSchedules[chain],
            (record.expiresDate ?? 0) > now.appleMilliseconds
        {
            schedule.ended = false
            setSchedule(schedule, for: chain)
            // The refund turned auto-renew off; the reversal puts the subscription back as it was sold.
            state.appleTransactions[index].autoRenewStatus = 1
        }
        try commit()
        return [event(.refundReversed, transaction: state.appleTransactions[index], at: now)]
    }

    /// Apple extends a subscription's renewal date (`RENEWAL_EXTENDED`) by `days` (compressed by the time scale, as
    /// every period), for a subscription in service.
    func extendApple(subscription id: String, days: Int, at now: Date = Date()) throws -> [AppleEvent] {
        let (index, _) = try subscriptionForClock(id)
        let latest = state.appleTransactions[index]
        guard latest.subscriptionStatus(at: now) == .active, let expires = latest.expiresDate else {
            throw SandboxStoreError.invalidSubscriptionState("Only an active subscription can be extended.")
        }
        let extra = Int64((Double(days) * 86_400_000 / timeScale).rounded())
        state.appleTransactions[index].expiresDate = expires + max(1, extra)
        try commit()
        return [event(.renewalExtended, transaction: state.appleTransactions[index], at: now)]
    }
}
