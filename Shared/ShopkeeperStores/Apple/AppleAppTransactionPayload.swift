import Foundation

/// A StoreKit 2 app transaction as Apple signs it: the payload of a `JWSAppTransaction` (Apple's `AppTransaction`,
/// what `AppTransaction.shared` carries on the device and what a `RESCIND_CONSENT` notification's
/// `appData.signedAppTransactionInfo` holds), with Apple's field names and value types. Dates are UNIX milliseconds.
///
/// An app transaction has no `signedDate` of its own: Apple signs it at `receiptCreationDate`, which Apple's
/// `SignedDataVerifier` takes as the date to validate the chain at, and its environment is `receiptType`. This type
/// answers ``AppleSignedPayload`` the same way, so ``AppleSignedDataVerifier`` verifies it like any other payload.
package struct AppleAppTransactionPayload: AppleSignedPayload, Codable, Equatable {
    /// The server environment that signed the app transaction: one of ``AppleEnvironment``'s raw values.
    package var receiptType: String?
    /// The app's Apple id (absent outside production).
    package var appAppleId: Int64?
    package var bundleId: String?
    /// The app version (`CFBundleVersion`) the app transaction applies to.
    package var applicationVersion: String?
    /// The App Store's identifier of the app version.
    package var versionExternalIdentifier: Int64?
    /// UNIX milliseconds at which the App Store signed the app transaction.
    package var receiptCreationDate: Int64?
    /// UNIX milliseconds at which the customer first obtained the app.
    package var originalPurchaseDate: Int64?
    /// The app version the customer first obtained.
    package var originalApplicationVersion: String?
    /// Base64 SHA-384 of the device's verification id appended to ``deviceVerificationNonce``.
    package var deviceVerification: String?
    /// The UUID (lowercase string) the device verification value was computed with.
    package var deviceVerificationNonce: String?
    /// UNIX milliseconds at which the customer pre-ordered the app, when they did.
    package var preorderDate: Int64?
    /// The unique identifier of the app download transaction.
    package var appTransactionId: String?
    /// The platform the customer first obtained the app on: one of ``ApplePurchasePlatform``'s raw values.
    package var originalPlatform: String?

    package init(
        receiptType: String? = nil, appAppleId: Int64? = nil, bundleId: String? = nil,
        applicationVersion: String? = nil, versionExternalIdentifier: Int64? = nil,
        receiptCreationDate: Int64? = nil, originalPurchaseDate: Int64? = nil,
        originalApplicationVersion: String? = nil, deviceVerification: String? = nil,
        deviceVerificationNonce: String? = nil, preorderDate: Int64? = nil, appTransactionId: String? = nil,
        originalPlatform: String? = nil
    ) {
        self.receiptType = receiptType
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.versionExternalIdentifier = versionExternalIdentifier
        self.receiptCreationDate = receiptCreationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.deviceVerification = deviceVerification
        self.deviceVerificationNonce = deviceVerificationNonce
        self.preorderDate = preorderDate
        self.appTransactionId = appTransactionId
        self.originalPlatform = originalPlatform
    }

    /// The date the App Store signed the app transaction: its ``receiptCreationDate`` (as Apple's library takes it).
    package var signedDate: Int64? { receiptCreationDate }

    /// The environment of the app transaction: its ``receiptType``.
    package var environment: String? { receiptType }

    /// ``originalPlatform``, when it is one Apple documents.
    package var typedOriginalPlatform: ApplePurchasePlatform? { originalPlatform.flatMap(ApplePurchasePlatform.init) }
}

/// The platforms Apple names in an app transaction's `originalPlatform` (Apple's `PurchasePlatform`).
package enum ApplePurchasePlatform: String, Codable, Sendable, CaseIterable {
    case iOS
    case macOS
    case tvOS
    case visionOS
}
