import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// A validated request for a new App Store transaction (from `POST /sandbox/apple/transactions`).
struct AppleTransactionDraft: Sendable {
    var bundleId: String
    var productId: String
    var type: AppleProductType
    var quantity: Int
    var environment: AppleEnvironment
    var appAccountToken: String?
    var purchaseDate: Date
    var expiresDate: Date?
    var period: ISODuration?
    var offerType: Int?
    var offerIdentifier: String?
    var offerDiscountType: String?
    var offerPeriod: String?
    var price: Int64
    var currency: String
    var storefront: String
    var storefrontId: String
    /// Makes this a renewal of that subscription.
    var originalTransactionId: String?
    var appAppleId: Int64?
    var subscriptionGroupIdentifier: String?
    /// The app's version in the receipt; a renewal keeps the subscription's when `nil`, a purchase takes `1.0`.
    var appVersion: String?
}

extension SandboxStore {
    /// Records a purchase (or a renewal) and returns it.
    func addAppleTransaction(_ draft: AppleTransactionDraft) throws -> AppleTransactionRecord {
        let purchase = draft.purchaseDate.appleMilliseconds
        let transactionId = String(state.nextTransactionNumber)
        state.nextTransactionNumber += 1
        var record = AppleTransactionRecord(
            transactionId: transactionId, originalTransactionId: transactionId, bundleId: draft.bundleId,
            productId: draft.productId, purchaseDate: purchase, originalPurchaseDate: purchase,
            quantity: draft.quantity, type: draft.type, appAccountToken: draft.appAccountToken,
            environment: draft.environment, storefront: draft.storefront, storefrontId: draft.storefrontId,
            transactionReason: "PURCHASE", currency: draft.currency, price: draft.price, offerType: draft.offerType,
            offerIdentifier: draft.offerIdentifier, offerDiscountType: draft.offerDiscountType,
            offerPeriod: draft.offerPeriod, orderId: StoreIdentifiers.appleOrderID(), appAppleId: draft.appAppleId
        )
        var previousLength: Int64?
        if let originalId = draft.originalTransactionId {
            guard let earlier = appleTransaction(id: originalId) else {
                throw SandboxStoreError.originalTransactionNotFound(originalId)
            }
            guard earlier.type == .autoRenewable, draft.type == .autoRenewable, earlier.bundleId == draft.bundleId
            else { throw SandboxStoreError.notRenewable(originalId) }
            let latest = latestTransaction(ofSubscription: earlier.originalTransactionId) ?? earlier
            record.originalTransactionId = earlier.originalTransactionId
            record.originalPurchaseDate = earlier.originalPurchaseDate
            record.environment = earlier.environment
            record.appAccountToken = draft.appAccountToken ?? earlier.appAccountToken
            record.assignedAppAccountToken = latest.assignedAppAccountToken
            record.subscriptionGroupIdentifier = earlier.subscriptionGroupIdentifier
            record.appAppleId = draft.appAppleId ?? earlier.appAppleId
            record.transactionReason = "RENEWAL"
            record.appVersion = draft.appVersion ?? latest.appVersion
            previousLength = latest.periodLength ?? latest.expiresDate.map { $0 - latest.purchaseDate }
        }
        record.appVersion = record.appVersion ?? draft.appVersion ?? "1.0"
        if draft.type == .autoRenewable {
            record.webOrderLineItemId = String(state.nextWebOrderLineItemNumber)
            state.nextWebOrderLineItemNumber += 1
            record.subscriptionGroupIdentifier =
                record.subscriptionGroupIdentifier ?? draft.subscriptionGroupIdentifier
                ?? Self.defaultSubscriptionGroup(bundleId: draft.bundleId)
            record.autoRenewStatus = 1
            if let expires = draft.expiresDate {
                record.expiresDate = expires.appleMilliseconds
            } else if let period = draft.period {
                record.expiresDate = purchase + period.milliseconds(scaledBy: timeScale, from: draft.purchaseDate)
            } else if let previousLength {
                record.expiresDate = purchase + previousLength
            }
        }
        if let expires = record.expiresDate { record.periodLength = expires - record.purchaseDate }
        appleIndex[record.transactionId] = state.appleTransactions.count
        noteCustomer(record, at: state.appleTransactions.count)
        state.appleTransactions.append(record)
        noteLatest(state.appleTransactions.count - 1)
        try commit()
        return record
    }

    func appleTransaction(id: String) -> AppleTransactionRecord? {
        appleIndex[id].map { state.appleTransactions[$0] }
    }

    /// The transaction `id` names, or when it is a customer's `appTransactionId`, that customer's first transaction:
    /// the endpoints that take "any transaction id of the customer" (Get Refund History) accept all three kinds, a
    /// `transactionId`, an `originalTransactionId` or an `appTransactionId`.
    func appleTransaction(anyId id: String) -> AppleTransactionRecord? {
        if let record = appleTransaction(id: id) { return record }
        guard let key = appTransactionIndex[id], let first = customerIndex[key]?.first else { return nil }
        return state.appleTransactions[first]
    }

    /// Every transaction the customer of `record` has in its app and environment, in the order they were made.
    func customerTransactions(of record: AppleTransactionRecord) -> [AppleTransactionRecord] {
        (customerIndex[record.customerKey] ?? []).map { state.appleTransactions[$0] }
    }

    /// The most recent transaction of a subscription (by purchase date, then by creation).
    func latestTransaction(ofSubscription originalTransactionId: String) -> AppleTransactionRecord? {
        chainLatest[originalTransactionId].map { state.appleTransactions[$0] }
    }

    /// The transactions of an order, restricted to one app and environment.
    func transactions(orderId: String, bundleId: String, environment: AppleEnvironment) -> [AppleTransactionRecord] {
        state.appleTransactions.filter {
            $0.orderId == orderId && $0.bundleId == bundleId && $0.environment == environment
        }
    }

    /// Refunds or revokes a transaction: it gets `revocationDate` and `revocationReason` from now on.
    func revokeAppleTransaction(id: String, reason: Int, kind: String, at date: Date) throws -> AppleTransactionRecord {
        guard let index = appleIndex[id] else { throw SandboxStoreError.transactionNotFound(id) }
        guard !state.appleTransactions[index].isRevoked else { throw SandboxStoreError.alreadyRevoked(id) }
        state.appleTransactions[index].revocationDate = date.appleMilliseconds
        state.appleTransactions[index].revocationReason = reason
        state.appleTransactions[index].revocationKind = kind
        if state.appleTransactions[index].type == .autoRenewable {
            state.appleTransactions[index].autoRenewStatus = 0
        }
        try commit()
        return state.appleTransactions[index]
    }

    /// Changes the renewal state of a subscription (on its latest transaction: a later renewal starts afresh).
    /// `billingRetry` false ends both billing retry and grace period; a grace period implies billing retry.
    func updateRenewal(
        subscription id: String, autoRenew: Bool?, billingRetry: Bool?, gracePeriodExpires: Date?
    ) throws -> AppleTransactionRecord {
        guard let named = appleTransaction(id: id) else { throw SandboxStoreError.transactionNotFound(id) }
        guard named.type == .autoRenewable, let latest = latestTransaction(ofSubscription: named.originalTransactionId),
            let index = appleIndex[latest.transactionId]
        else { throw SandboxStoreError.notRenewable(id) }
        if let autoRenew { state.appleTransactions[index].autoRenewStatus = autoRenew ? 1 : 0 }
        if let billingRetry {
            state.appleTransactions[index].isInBillingRetryPeriod = billingRetry
            if !billingRetry { state.appleTransactions[index].gracePeriodExpiresDate = nil }
        }
        if let gracePeriodExpires {
            state.appleTransactions[index].isInBillingRetryPeriod = true
            state.appleTransactions[index].gracePeriodExpiresDate = gracePeriodExpires.appleMilliseconds
        }
        try commit()
        return state.appleTransactions[index]
    }

    func addAppleKey(_ key: AppleAPIKeyRecord) throws {
        state.appleKeys.append(key)
        try commit()
    }

    func appleKey(id: String) -> AppleAPIKeyRecord? {
        state.appleKeys.first { $0.keyId == id }
    }

    /// The bundle ids an issuer (an App Store Connect team) has keys for.
    func bundleIds(ofIssuer issuerId: String) -> Set<String> {
        Set(state.appleKeys.filter { $0.issuerId == issuerId }.map(\.bundleId))
    }

    /// A stable numeric subscription group id per app, for subscriptions created without one.
    static func defaultSubscriptionGroup(bundleId: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in bundleId.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return String(20_000_000 + Int(hash % 9_000_000))
    }
}
