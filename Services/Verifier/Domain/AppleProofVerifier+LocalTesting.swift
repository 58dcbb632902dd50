import Foundation
import ShopkeeperModels
import ShopkeeperStores
import X509

/// Proofs of the local environments (`Xcode`, `LocalTesting`), which Apple does not sign: StoreKit Testing in Xcode
/// signs them with a certificate of the developer's Mac, Apple's StoreKit test chain signs `LocalTesting` data, and
/// some are not signed at all. Apple's App Store Server Library skips every check of who signed them.
extension AppleProofVerifier {
    /// The explicit development setting that accepts local data as Apple's library does.
    static let localTestingSetting = "accept_local_testing"

    /// A JWS of a local environment, once ``checkLocalEnvironment(_:credentials:)`` allowed the environment at all:
    /// with the app's `accept_local_testing` on, decoded unverified, as Apple's library does; otherwise it must be
    /// signed with the app's StoreKit test certificate (``StoreKitTestVerifier``). `LocalTesting` data that is not
    /// (another chain's, or unsigned) is refused `local_testing_not_allowed`, naming the setting.
    func verifyLocal<Payload: AppleSignedPayload>(
        _ jws: String, claiming environment: AppleEnvironment, as _: Payload.Type, credentials: AppleCredentials
    ) throws(VerifierError) -> Payload {
        do {
            guard let certificate = try Self.localSigner(environment, credentials: credentials) else {
                return try StoreKitTestVerifier.decodeUnverified(jws, as: Payload.self)
            }
            return try StoreKitTestVerifier.verify(jws, trusting: certificate, as: Payload.self)
        } catch let error as AppleSignedDataError {
            // Signed by something else than the app's certificate (another chain, or no signature at all).
            let otherSigner =
                switch error {
                case .invalidCertificateChain, .untrustedChain, .unsupportedAlgorithm: true
                default: false
                }
            if otherSigner && environment == .localTesting {
                throw Self.localProofRefused(environment, reason: error.description)
            }
            throw .proofRejected(code: error.code, detail: error.description)
        } catch let error as VerifierError {
            throw error
        } catch {
            throw .proofRejected(code: "malformed_proof", detail: "The proof could not be verified.")
        }
    }

    /// What a local proof must be signed with: the app's StoreKit test certificate, or `nil` when the app accepts
    /// local data unverified (`accept_local_testing`); without either it is refused.
    static func localSigner(_ environment: AppleEnvironment, credentials: AppleCredentials) throws(VerifierError)
        -> Certificate?
    {
        if credentials.acceptsLocalTesting { return nil }
        guard let pem = credentials.storeKitTestCertificate,
            let certificate = StoreKitTestVerifier.certificate(pemOrBase64DER: pem)
        else { throw localProofRefused(environment, reason: nil) }
        return certificate
    }

    /// Why a local proof that the app's StoreKit test certificate does not verify is refused: `Xcode` without a
    /// certificate `storekit_test_certificate_missing`, `LocalTesting` `local_testing_not_allowed`; both name
    /// the `accept_local_testing` setting.
    static func localProofRefused(_ environment: AppleEnvironment, reason: String?) -> VerifierError {
        let setting =
            "or, for an app in development mode, set the Apple credentials' \(localTestingSetting) to true to accept "
            + "\(environment.rawValue) data unverified, as Apple's App Store Server Library does."
        if environment == .localTesting {
            return .proofRejected(
                code: "local_testing_not_allowed",
                detail: "This LocalTesting proof is not signed with the app's StoreKit test certificate"
                    + (reason.map { " (\($0))" } ?? "") + ": upload that certificate as storekit_test_certificate, "
                    + setting)
        }
        return .proofRejected(
            code: "storekit_test_certificate_missing",
            detail: "This \(environment.rawValue) proof was signed by Xcode's StoreKit Testing; upload the StoreKit "
                + "test certificate exported from Xcode as the Apple credentials' storekit_test_certificate, "
                + setting)
    }

    /// A legacy receipt of a local environment (receipt type `Xcode` or `LocalTesting`: StoreKit Testing in Xcode
    /// signs it with the Mac's StoreKit test certificate), once ``checkLocalEnvironment(_:credentials:)`` allowed the
    /// environment: read unverified with `accept_local_testing` on, else signed with the app's StoreKit test
    /// certificate. Apple's `verifyReceipt` does not know such receipts: their purchases are the receipt's own.
    func verifyLocalReceipt(_ base64: String, environment: AppleEnvironment, credentials: AppleCredentials)
        throws(VerifierError) -> [StoreTransaction]
    {
        let receipt: AppReceipt
        do {
            if let certificate = try Self.localSigner(environment, credentials: credentials) {
                receipt = try AppReceiptReader.readStoreKitTest(base64: base64, trusting: certificate)
            } else {
                receipt = try AppReceiptReader.unverified(base64: base64)
            }
        } catch let error as AppReceiptError {
            if case .untrustedChain = error, environment == .localTesting {
                throw Self.localProofRefused(environment, reason: error.description)
            }
            throw .proofRejected(code: error.code, detail: error.description)
        } catch let error as VerifierError {
            throw error
        } catch {
            throw .proofRejected(code: "malformed_receipt", detail: "The receipt could not be read.")
        }
        try check(bundleID: receipt.bundleId, environment: environment.rawValue, credentials: credentials)
        return try AppleReceiptNormalizer.normalize(
            VerifyReceiptResponse(
                status: .valid, environment: environment.rawValue, receipt: VerifyReceiptResponse.Receipt(receipt)))
    }
}
