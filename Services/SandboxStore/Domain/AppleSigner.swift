import Foundation
import ShopkeeperStores

/// Signs App Store data with the sandbox's chain, the way Apple signs it: JWS with ES256 and an `x5c` header, and
/// legacy app receipts as PKCS#7 containers.
struct AppleSigner: Sendable {
    private let signer: ES256Signer
    private let chain: SigningChain

    init(chain: SigningChain) throws {
        self.signer = try ES256Signer(chain: chain)
        self.chain = chain
    }

    /// `signedTransactionInfo` for `record`, signed at `now`.
    func transaction(_ record: AppleTransactionRecord, at now: Date = Date()) throws -> String {
        try signer.sign(record.payload(signedDate: now))
    }

    /// `signedRenewalInfo` for the subscription whose latest transaction is `latest` (renewing into `renewsInto`
    /// when the customer downgraded).
    func renewalInfo(
        _ latest: AppleTransactionRecord, recentStart: Int64, renewsInto: String? = nil, at now: Date = Date()
    ) throws -> String {
        try signer.sign(latest.renewalInfo(signedDate: now, recentStart: recentStart, autoRenewProductId: renewsInto))
    }

    /// The `signedAppTransactionInfo` (StoreKit 2's `AppTransaction` JWS) of `record`, signed at `now`.
    func appTransaction(_ record: AppleAppTransactionRecord, at now: Date = Date()) throws -> String {
        try signer.sign(record.payload(signedDate: now))
    }

    /// The `signedPayload` of an App Store Server Notification V2 about `event`, with a new `notificationUUID`,
    /// signed (and its transaction and renewal info signed) at `now`.
    ///
    /// As Apple's, the payload carries exactly one of `data` (a transaction, or only the app: `TEST`), `summary`
    /// (`RENEWAL_EXTENSION` `SUMMARY`), `appData` (`RESCIND_CONSENT`) or `externalPurchaseToken`
    /// (`EXTERNAL_PURCHASE_TOKEN`).
    func notification(_ event: AppleEvent, uuid: String, at now: Date = Date()) throws -> String {
        var payload = AppleNotificationPayload(
            notificationType: event.type.rawValue, subtype: event.subtype?.rawValue, notificationUUID: uuid,
            version: "2.0", signedDate: now.appleMilliseconds)
        if let token = event.externalPurchaseToken {
            payload.externalPurchaseToken = token
        } else if let appTransaction = event.appTransaction {
            payload.appData = AppleNotificationPayload.AppData(
                appAppleId: appTransaction.appAppleId, bundleId: appTransaction.bundleId,
                environment: appTransaction.environment.rawValue,
                signedAppTransactionInfo: try self.appTransaction(appTransaction, at: now))
        } else if let summary = event.summary {
            payload.summary = summary
        } else {
            let status = event.latest.map { $0.subscriptionStatus(at: now).rawValue }
            payload.data = AppleNotificationPayload.Data(
                appAppleId: event.appAppleId, bundleId: event.bundleId, bundleVersion: event.bundleVersion,
                environment: event.environment.rawValue,
                signedTransactionInfo: try event.transaction.map { try transaction($0, at: now) },
                signedRenewalInfo: try event.latest.map {
                    try renewalInfo($0, recentStart: $0.originalPurchaseDate, renewsInto: event.renewsInto, at: now)
                },
                status: status, consumptionRequestReason: event.consumptionRequestReason)
        }
        return try signer.sign(payload)
    }

    /// `receipt` as an app receipt travels: the base64 of its PKCS#7 container.
    func receipt(_ receipt: AppReceipt) throws -> String {
        Data(try AppReceiptContainer.sign(receipt, with: chain)).base64EncodedString()
    }
}
