import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// A mass renewal-date extension (Extend Subscription Renewal Dates for All Active Subscribers) and its outcome, for
/// Get Status of Subscription Renewal Date Extensions. The sandbox extends at once, so every request is complete.
struct AppleMassExtensionRecord: Codable, Sendable, Equatable {
    var requestIdentifier: String
    var bundleId: String
    var environment: AppleEnvironment
    var productId: String
    /// UNIX milliseconds.
    var completeDate: Int64
    var succeededCount: Int64
    var failedCount: Int64

    /// The key it is kept under: Apple finds a request by app, environment, product and request identifier.
    static func key(
        bundleId: String, environment: AppleEnvironment, productId: String, requestIdentifier: String
    ) -> String {
        "\(environment.rawValue)|\(bundleId)|\(productId)|\(requestIdentifier)"
    }
}

/// Why Apple refuses to set an app account token.
enum AppleAppAccountTokenRefusal: Error, Equatable {
    /// No transaction with that id for this app in this environment.
    case notFound
    /// The id is a renewal's, not the original transaction's.
    case notOriginal
}

extension SandboxStore {
    /// Extend Subscription Renewal Dates for All Active Subscribers: every active subscription of `productId` (of
    /// `bundleId`, in `environment`, in one of `storefronts` when given) gets `days` more, each as
    /// ``extendAppleRenewal(originalTransactionId:days:bundleId:environment:at:)`` does (one that Apple's rules make
    /// ineligible is counted as failed). Owes `RENEWAL_EXTENDED` for each extended one and the `RENEWAL_EXTENSION`
    /// `SUMMARY`. A request identifier seen before for the same product extends nothing again: its record is returned.
    func massExtendAppleRenewals(
        productId: String, days: Int, storefronts: [String]?, requestIdentifier: String, bundleId: String,
        environment: AppleEnvironment, at now: Date = Date()
    ) throws -> (record: AppleMassExtensionRecord, events: [AppleEvent]) {
        let key = AppleMassExtensionRecord.key(
            bundleId: bundleId, environment: environment, productId: productId, requestIdentifier: requestIdentifier)
        if let existing = state.appleMassExtensions[key] { return (existing, []) }
        var originals: [String] = []
        var seen: Set<String> = []
        for record in state.appleTransactions
        where record.bundleId == bundleId && record.environment == environment && record.type == .autoRenewable
            && seen.insert(record.originalTransactionId).inserted
        {
            originals.append(record.originalTransactionId)
        }
        var events: [AppleEvent] = []
        var succeeded: Int64 = 0
        var failed: Int64 = 0
        var appAppleId: Int64?
        for original in originals {
            guard let latest = latestTransaction(ofSubscription: original), latest.productId == productId,
                latest.subscriptionStatus(at: now) == .active,
                storefronts.map({ $0.contains(latest.storefront) }) ?? true
            else { continue }
            do {
                let (_, extended) = try extendAppleRenewal(
                    originalTransactionId: original, days: days, bundleId: bundleId, environment: environment, at: now)
                events += extended
                succeeded += 1
            } catch is AppleExtensionRefusal {
                failed += 1
            }
            appAppleId = appAppleId ?? latest.appAppleId
        }
        let record = AppleMassExtensionRecord(
            requestIdentifier: requestIdentifier, bundleId: bundleId, environment: environment, productId: productId,
            completeDate: now.appleMilliseconds, succeededCount: succeeded, failedCount: failed)
        state.appleMassExtensions[key] = record
        try commit()
        var summary = AppleEvent(.renewalExtension, bundleId: bundleId, environment: environment, at: now)
        summary.subtype = .summary
        summary.summary = AppleNotificationPayload.Summary(
            requestIdentifier: requestIdentifier, environment: environment.rawValue,
            appAppleId: appAppleId ?? AppleAppIdentity.appAppleId(bundleId: bundleId), bundleId: bundleId,
            productId: productId, storefrontCountryCodes: storefronts ?? [], succeededCount: succeeded,
            failedCount: failed)
        return (record, events + [summary])
    }

    /// The mass extension `requestIdentifier` names for `productId` of `bundleId` in `environment`.
    func appleMassExtension(
        productId: String, requestIdentifier: String, bundleId: String, environment: AppleEnvironment
    ) -> AppleMassExtensionRecord? {
        state.appleMassExtensions[
            AppleMassExtensionRecord.key(
                bundleId: bundleId, environment: environment, productId: productId,
                requestIdentifier: requestIdentifier)]
    }

    /// Set App Account Token: the purchase of `originalTransactionId` (of `bundleId`, in `environment`), its
    /// renewals to come included, is signed with `token` as its `appAccountToken` from now on. The customer stays
    /// who they were (``AppleTransactionRecord/customerKey``).
    func assignAppleAppAccountToken(
        _ token: String, originalTransactionId: String, bundleId: String, environment: AppleEnvironment
    ) throws {
        guard let named = appleTransaction(id: originalTransactionId), named.bundleId == bundleId,
            named.environment == environment
        else { throw AppleAppAccountTokenRefusal.notFound }
        guard named.originalTransactionId == originalTransactionId else {
            throw AppleAppAccountTokenRefusal.notOriginal
        }
        for index in state.appleTransactions.indices
        where state.appleTransactions[index].originalTransactionId == originalTransactionId {
            state.appleTransactions[index].assignedAppAccountToken = token
        }
        try commit()
    }
}
