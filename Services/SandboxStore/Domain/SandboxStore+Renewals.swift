import Foundation
import ShopkeeperStores

/// What happened at the end of a subscription period the sandbox moved on.
enum PeriodEnd: Sendable, Equatable {
    /// A new period began (`renewed` is its transaction); `recovered` when billing had failed before.
    case renewed(AppleTransactionRecord, recovered: Bool)
    /// Billing failed: the App Store retries, with a grace period when one is given.
    case billingFailed(AppleTransactionRecord, graceUntil: Date?)
    /// The grace period ended while billing still fails.
    case graceExpired(AppleTransactionRecord)
    /// The subscription ended (`voluntary`: auto-renew was off).
    case expired(AppleTransactionRecord, voluntary: Bool)
}

/// How the end of the current period goes.
enum RenewalOutcome: String, Codable, Sendable {
    /// Billing succeeds (or the customer turned auto-renew off: then it expires).
    case renew
    /// Billing fails.
    case fail
}

extension SandboxStore {
    /// Ends the current period of a subscription now and runs what follows it, as the App Store would:
    /// auto-renew off expires it; `outcome` `renew` starts a new period of the same length (recovering a failed
    /// billing); `fail` puts it in billing retry, with a grace period of `grace` when given (a second `fail` ends
    /// the grace period; a third expires it).
    func endPeriod(
        subscription id: String, outcome: RenewalOutcome, grace: TimeInterval?, at now: Date = Date()
    ) throws -> PeriodEnd {
        guard let named = appleTransaction(id: id) else { throw SandboxStoreError.transactionNotFound(id) }
        guard named.type == .autoRenewable,
            let latest = latestTransaction(ofSubscription: named.originalTransactionId),
            let index = appleIndex[latest.transactionId]
        else { throw SandboxStoreError.notRenewable(id) }
        guard !latest.isRevoked else { throw SandboxStoreError.alreadyRevoked(latest.transactionId) }
        let nowMilliseconds = now.appleMilliseconds
        let wasFailing = latest.isInBillingRetryPeriod == true
        // The current period ends now (no later than it would have).
        if let expires = latest.expiresDate, expires > nowMilliseconds {
            state.appleTransactions[index].expiresDate = nowMilliseconds
        }
        if latest.autoRenewStatus == 0 {
            state.appleTransactions[index].isInBillingRetryPeriod = false
            state.appleTransactions[index].gracePeriodExpiresDate = nil
            try commit()
            return .expired(state.appleTransactions[index], voluntary: true)
        }
        switch outcome {
        case .renew:
            let length = max(1, latest.periodLength ?? ((latest.expiresDate ?? nowMilliseconds) - latest.purchaseDate))
            let draft = AppleTransactionDraft(
                bundleId: latest.bundleId, productId: latest.productId, type: .autoRenewable, quantity: 1,
                environment: latest.environment, appAccountToken: latest.appAccountToken, purchaseDate: now,
                expiresDate: Date(appleMilliseconds: nowMilliseconds + length), period: nil, offerType: nil,
                offerIdentifier: nil, offerDiscountType: nil, offerPeriod: nil, price: latest.price,
                currency: latest.currency, storefront: latest.storefront, storefrontId: latest.storefrontId,
                originalTransactionId: latest.originalTransactionId, appAppleId: latest.appAppleId,
                subscriptionGroupIdentifier: latest.subscriptionGroupIdentifier, appVersion: nil)
            state.appleTransactions[index].isInBillingRetryPeriod = false
            state.appleTransactions[index].gracePeriodExpiresDate = nil
            return .renewed(try addAppleTransaction(draft), recovered: wasFailing)
        case .fail:
            if wasFailing {
                if let graceEnd = latest.gracePeriodExpiresDate, graceEnd > nowMilliseconds {
                    state.appleTransactions[index].gracePeriodExpiresDate = nowMilliseconds
                    try commit()
                    return .graceExpired(state.appleTransactions[index])
                }
                state.appleTransactions[index].isInBillingRetryPeriod = false
                state.appleTransactions[index].autoRenewStatus = 0
                try commit()
                return .expired(state.appleTransactions[index], voluntary: false)
            }
            state.appleTransactions[index].isInBillingRetryPeriod = true
            let graceUntil = grace.map { now.addingTimeInterval($0) }
            state.appleTransactions[index].gracePeriodExpiresDate = graceUntil?.appleMilliseconds
            try commit()
            return .billingFailed(state.appleTransactions[index], graceUntil: graceUntil)
        }
    }

    /// Subscriptions whose current period has ended by `now` and that nothing moved on yet: their latest
    /// transaction, not revoked, not in billing retry (those wait for a control).
    func subscriptionsDue(at now: Date) -> [AppleTransactionRecord] {
        let nowMilliseconds = now.appleMilliseconds
        var latestByChain: [String: AppleTransactionRecord] = [:]
        for record in state.appleTransactions where record.type == .autoRenewable {
            if let known = latestByChain[record.originalTransactionId],
                (known.purchaseDate, known.transactionId) >= (record.purchaseDate, record.transactionId)
            {
                continue
            }
            latestByChain[record.originalTransactionId] = record
        }
        return latestByChain.values.filter { record in
            guard let expires = record.expiresDate, expires <= nowMilliseconds, !record.isRevoked else { return false }
            return record.isInBillingRetryPeriod != true && record.autoRenewStatus != 0
        }
        .sorted { $0.transactionId < $1.transactionId }
    }
}
