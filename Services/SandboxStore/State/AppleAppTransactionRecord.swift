import Crypto
import Foundation
import ShopkeeperStores

/// The app transaction (StoreKit 2's `AppTransaction`) of one sandbox buyer: the proof that this customer got this
/// app, made once per (environment, bundle id, app account token) by `POST /sandbox/apple/app-transactions` and
/// signed afresh (new `receiptCreationDate`, new device verification) on every answer.
struct AppleAppTransactionRecord: Codable, Sendable, Equatable {
    var appTransactionId: String
    var bundleId: String
    var environment: AppleEnvironment
    /// The buyer: the sandbox has no Apple IDs, so a customer is an app account token, as in history and receipts
    /// (``AppleTransactionRecord/customerKey``).
    var appAccountToken: String
    var appAppleId: Int64?
    /// `CFBundleVersion` of the app as the customer has it now.
    var applicationVersion: String
    /// `CFBundleVersion` of the app the customer first got (what grandfathering looks at).
    var originalApplicationVersion: String
    /// UNIX milliseconds.
    var originalPurchaseDate: Int64
    /// UNIX milliseconds, when the customer pre-ordered the app.
    var preorderDate: Int64?
    /// `iOS`, `macOS`, `tvOS` or `visionOS`.
    var originalPlatform: String
    /// The App Store's identifier of the app version (0 outside production, as Apple's sandbox).
    var versionExternalIdentifier: Int64

    /// The customer key of the buyer, the same as that of their transactions.
    var customerKey: String {
        Self.customerKey(environment: environment, bundleId: bundleId, appAccountToken: appAccountToken)
    }

    static func customerKey(environment: AppleEnvironment, bundleId: String, appAccountToken: String) -> String {
        "\(environment.rawValue)|\(bundleId)|token:\(appAccountToken)"
    }

    /// The `appTransactionId` of a customer: a stable number derived from the customer key, so the customer's
    /// transactions, renewal infos and app transaction carry the same one across restarts without storing it. A
    /// customer without an app account token is a subscription chain (or a single purchase), as in history.
    static func appTransactionId(customerKey: String) -> String {
        let digest = SHA256.hash(data: Data(("appTransactionId|" + customerKey).utf8))
        let number = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return String(700_000_000_000_000_000 + number % 299_999_999_999_999_999)
    }

    /// The payload Apple would sign for this app transaction at `signedDate`: a new device verification nonce each
    /// time, as each device asks for its own.
    func payload(signedDate: Date) -> AppleAppTransactionPayload {
        let nonce = UUID().uuidString.lowercased()
        let deviceIdentifier = UUID().uuidString.lowercased()
        let verification = SHA384.hash(data: Data((deviceIdentifier + nonce).utf8))
        return AppleAppTransactionPayload(
            receiptType: environment.rawValue, appAppleId: appAppleId, bundleId: bundleId,
            applicationVersion: applicationVersion, versionExternalIdentifier: versionExternalIdentifier,
            receiptCreationDate: signedDate.appleMilliseconds, originalPurchaseDate: originalPurchaseDate,
            originalApplicationVersion: originalApplicationVersion,
            deviceVerification: Data(verification).base64EncodedString(), deviceVerificationNonce: nonce,
            preorderDate: preorderDate, appTransactionId: appTransactionId, originalPlatform: originalPlatform)
    }
}
