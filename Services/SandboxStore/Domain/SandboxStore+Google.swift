import Foundation
import ShopkeeperStores

/// A validated request for a new Google Play purchase (from `POST /sandbox/google/purchases`).
struct GooglePurchaseDraft: Sendable {
    var packageName: String
    var productId: String
    var kind: GooglePurchaseRecord.Kind
    var quantity: Int
    var pending: Bool
    var obfuscatedAccountId: String?
    var test: Bool
    var purchaseTime: Date
    var expiryTime: Date?
    var basePlanId: String?
    var regionCode: String
    /// The Google account buying (any name); `nil`: anyone, and nothing stops a second purchase.
    var buyer: String? = nil
}

extension SandboxStore {
    func addGooglePurchase(_ draft: GooglePurchaseDraft) throws -> GooglePurchaseRecord {
        if let buyer = draft.buyer, draft.kind == .product,
            state.googlePurchases.contains(where: {
                $0.blocksRepurchase(by: buyer, of: draft.productId, in: draft.packageName)
            })
        {
            throw SandboxStoreError.itemAlreadyOwned(draft.productId)
        }
        var record = GooglePurchaseRecord(
            purchaseToken: StoreIdentifiers.googlePurchaseToken(), orderId: StoreIdentifiers.googleOrderID(),
            packageName: draft.packageName, productId: draft.productId, kind: draft.kind, quantity: draft.quantity,
            purchaseTime: draft.purchaseTime.appleMilliseconds, state: draft.pending ? .pending : .purchased,
            acknowledged: false, consumed: false, obfuscatedAccountId: draft.obfuscatedAccountId, test: draft.test,
            regionCode: draft.regionCode, expiryTime: draft.expiryTime?.appleMilliseconds,
            autoRenewing: draft.kind == .subscription, basePlanId: draft.basePlanId, voided: false
        )
        record.buyer = draft.buyer
        googleIndex[record.purchaseToken] = state.googlePurchases.count
        state.googlePurchases.append(record)
        try commit()
        return record
    }

    func googlePurchase(token: String) -> GooglePurchaseRecord? {
        googleIndex[token].map { state.googlePurchases[$0] }
    }

    /// Applies `change` to the purchase with `token` and saves it.
    func updatePurchase(
        _ token: String, _ change: (inout GooglePurchaseRecord) throws -> Void
    ) throws -> GooglePurchaseRecord {
        let record = try changePurchase(token, change)
        try commit()
        return record
    }

    /// Applies `change` to the purchase with `token` without saving it, for an operation that changes more and then
    /// saves all of it at once (``commit()``: one line of the state log, which a crash keeps whole or not at all).
    private func changePurchase(
        _ token: String, _ change: (inout GooglePurchaseRecord) throws -> Void
    ) throws -> GooglePurchaseRecord {
        guard let index = googleIndex[token] else { throw SandboxStoreError.purchaseNotFound(token) }
        var record = state.googlePurchases[index]
        try change(&record)
        state.googlePurchases[index] = record
        return record
    }

    /// A pending purchase gets paid: it becomes purchased.
    func completeGooglePurchase(token: String) throws -> GooglePurchaseRecord {
        try updatePurchase(token) { record in
            guard record.state == .pending else { throw SandboxStoreError.invalidPurchaseState("not pending") }
            record.state = .purchased
        }
    }

    /// `:acknowledge`: only purchased purchases can be acknowledged; acknowledging twice is harmless.
    func acknowledgeGooglePurchase(token: String) throws -> GooglePurchaseRecord {
        try updatePurchase(token) { record in
            guard record.state == .purchased, !record.voided else {
                throw SandboxStoreError.invalidPurchaseState(
                    "The purchase is not in a valid state to perform the desired operation.")
            }
            record.acknowledged = true
        }
    }

    /// `:consume`: only purchased one-time products can be consumed; consuming also acknowledges, and consuming
    /// twice is harmless.
    func consumeGooglePurchase(token: String) throws -> GooglePurchaseRecord {
        try updatePurchase(token) { record in
            guard record.kind == .product, record.state == .purchased, !record.voided else {
                throw SandboxStoreError.invalidPurchaseState(
                    "The purchase is not in a valid state to perform the desired operation.")
            }
            record.consumed = true
            record.acknowledged = true
        }
    }

    /// Refunds a purchase: it is cancelled and ended (a subscription ends at once; the clock leaves it alone) and
    /// listed among the voided purchases.
    ///
    /// Both are saved as one change: a crash (`kill -9`) between two saves would leave a purchase voided, so that no
    /// second refund is possible, yet missing from `purchases.voidedpurchases.list`, the only place Google keeps a
    /// refund whose notification was lost.
    func refundGooglePurchase(token: String, source: Int, reason: Int, at date: Date) throws -> GooglePurchaseRecord {
        let record = try changePurchase(token) { record in
            guard !record.voided, record.state != .pending else {
                throw SandboxStoreError.invalidPurchaseState(
                    "only a purchased, not yet voided purchase can be refunded")
            }
            record.voided = true
            record.state = .canceled
            record.autoRenewing = false
            record.ended = true
        }
        state.googleVoided.append(
            GoogleVoidedRecord(
                purchaseToken: record.purchaseToken, orderId: record.orderId, purchaseTime: record.purchaseTime,
                voidedTime: date.appleMilliseconds, voidedSource: source, voidedReason: reason,
                packageName: record.packageName, isSubscription: record.kind == .subscription
            ))
        try commit()
        return record
    }

    /// Refunds `units` of a multi-quantity one-time purchase (a quantity-based partial refund): they are listed among
    /// the voided purchases with their `voidedQuantity`, and `refundableQuantity` drops by as many. Refunding the last
    /// of them voids the purchase too (cancelled, as a full refund leaves it). Saved as one change, as
    /// ``refundGooglePurchase(token:source:reason:at:)`` is.
    func refundGoogleUnits(token: String, units: Int, source: Int, reason: Int, at date: Date) throws
        -> GooglePurchaseRecord
    {
        let record = try changePurchase(token) { record in
            guard record.kind == .product, !record.voided, record.state == .purchased else {
                throw SandboxStoreError.invalidPurchaseState(
                    "only a purchased, not yet voided one-time purchase can be partly refunded")
            }
            let refunded = record.refundedQuantity ?? 0
            guard units >= 1, units <= record.quantity - refunded else {
                throw SandboxStoreError.invalidPurchaseState(
                    "only \(record.quantity - refunded) of the purchase's \(record.quantity) units can be refunded")
            }
            record.refundedQuantity = refunded + units
            if refunded + units == record.quantity {
                record.voided = true
                record.state = .canceled
            }
        }
        state.googleVoided.append(
            GoogleVoidedRecord(
                purchaseToken: record.purchaseToken, orderId: record.orderId, purchaseTime: record.purchaseTime,
                voidedTime: date.appleMilliseconds, voidedSource: source, voidedReason: reason,
                packageName: record.packageName, isSubscription: false, voidedQuantity: units
            ))
        try commit()
        return record
    }

    /// Voided purchases of a package voided within `window` (UNIX ms), oldest first; quantity-based partial refunds
    /// only when `includePartial` (Google's `includeQuantityBasedPartialRefund`).
    func voidedPurchases(
        packageName: String, window: ClosedRange<Int64>, includeSubscriptions: Bool, includePartial: Bool = false
    ) -> [GoogleVoidedRecord] {
        state.googleVoided.filter {
            $0.packageName == packageName && window.contains($0.voidedTime)
                && (includeSubscriptions || !$0.isSubscription) && (includePartial || $0.voidedQuantity == nil)
        }
    }

    func addServiceAccount(_ account: GoogleServiceAccountRecord) throws {
        state.googleAccounts.append(account)
        try commit()
    }

    func serviceAccount(email: String) -> GoogleServiceAccountRecord? {
        state.googleAccounts.first { $0.clientEmail == email }
    }

    /// Issues an access token for a service account, valid `lifetime` seconds; forgets expired ones.
    func issueAccessToken(clientEmail: String, lifetime: Int64, at date: Date) throws -> GoogleAccessTokenRecord {
        let now = date.appleMilliseconds
        state.googleAccessTokens.removeAll { $0.expiresAt <= now }
        let record = GoogleAccessTokenRecord(
            token: StoreIdentifiers.googleAccessToken(), clientEmail: clientEmail, expiresAt: now + lifetime * 1000)
        state.googleAccessTokens.append(record)
        try commit()
        return record
    }

    /// The service account an unexpired access token was issued to.
    func accountForAccessToken(_ token: String, at date: Date) -> GoogleServiceAccountRecord? {
        guard let record = state.googleAccessTokens.first(where: { $0.token == token }),
            record.expiresAt > date.appleMilliseconds
        else { return nil }
        return serviceAccount(email: record.clientEmail)
    }
}
