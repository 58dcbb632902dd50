import Foundation
import ShopkeeperStores

/// A validated request for a customer's app transaction (from `POST /sandbox/apple/app-transactions`).
struct AppleAppTransactionDraft: Sendable {
    var bundleId: String
    var environment: AppleEnvironment
    var appAccountToken: String
    var appAppleId: Int64?
    /// The first version the customer got: kept from the first request on.
    var originalApplicationVersion: String?
    /// The version the customer has now: replaces the one kept when given.
    var applicationVersion: String?
    var originalPurchaseDate: Date?
    var preorderDate: Date?
    var originalPlatform: String?
}

extension SandboxStore {
    /// The app transaction of the draft's customer, made the first time (`created`); a later request keeps the
    /// original version, date and platform, and moves the current `applicationVersion` when it names one.
    func appTransaction(_ draft: AppleAppTransactionDraft, at now: Date = Date()) throws -> (
        record: AppleAppTransactionRecord, created: Bool
    ) {
        let key = AppleAppTransactionRecord.customerKey(
            environment: draft.environment, bundleId: draft.bundleId, appAccountToken: draft.appAccountToken)
        if var existing = state.appleAppTransactions[key] {
            if let version = draft.applicationVersion, version != existing.applicationVersion {
                existing.applicationVersion = version
                state.appleAppTransactions[key] = existing
                try commit()
            }
            return (existing, false)
        }
        let original = draft.originalApplicationVersion ?? "1.0"
        let record = AppleAppTransactionRecord(
            appTransactionId: AppleAppTransactionRecord.appTransactionId(customerKey: key), bundleId: draft.bundleId,
            environment: draft.environment, appAccountToken: draft.appAccountToken, appAppleId: draft.appAppleId,
            applicationVersion: draft.applicationVersion ?? original, originalApplicationVersion: original,
            originalPurchaseDate: (draft.originalPurchaseDate ?? now).appleMilliseconds,
            preorderDate: draft.preorderDate?.appleMilliseconds, originalPlatform: draft.originalPlatform ?? "iOS",
            versionExternalIdentifier: draft.environment == .production ? 1 : 0)
        state.appleAppTransactions[key] = record
        try commit()
        return (record, true)
    }

    /// The app transaction a customer already has.
    func existingAppTransaction(
        bundleId: String, environment: AppleEnvironment, appAccountToken: String
    ) -> AppleAppTransactionRecord? {
        state.appleAppTransactions[
            AppleAppTransactionRecord.customerKey(
                environment: environment, bundleId: bundleId, appAccountToken: appAccountToken)]
    }
}
