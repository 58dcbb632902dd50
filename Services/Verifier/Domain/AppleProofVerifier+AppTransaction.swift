import Crypto
import Foundation
import ShopkeeperModels
import ShopkeeperStores

extension AppleProofVerifier {
    /// Verifies a StoreKit 2 app transaction like any Apple JWS and says what it proves: signed for the app's own
    /// bundle id, or for one of its variants' (`variant_bundle_ids`: a paid edition sold as an app of its own, whose
    /// app transaction shows that variant), in an environment the app accepts.
    func verifyAppTransaction(_ jws: String, credentials: AppleCredentials) async throws(VerifierError)
        -> AppTransactionFacts
    {
        let payload = try await verifySigned(jws, as: AppleAppTransactionPayload.self, credentials: credentials)
        let variant = payload.bundleId.flatMap {
            $0 == credentials.bundleID ? nil : credentials.variant(ofBundleID: $0)
        }
        if variant == nil {
            try check(bundleID: payload.bundleId, environment: payload.environment, credentials: credentials)
            try checkAppAppleID(payload.appAppleId, environment: payload.environment, credentials: credentials)
        } else {
            // A variant is an app of its own (its own App Apple ID): its bundle id matched one the app names, and
            // the environment must still be one the app accepts.
            try check(bundleID: credentials.bundleID, environment: payload.environment, credentials: credentials)
        }
        guard let environment = payload.environment.flatMap(AppleEnvironment.init(rawValue:)) else {
            throw .proofRejected(code: "wrong_environment", detail: "The proof names no known App Store environment.")
        }
        let id: String
        if let given = payload.appTransactionId, !given.isEmpty, given.count <= 128 {
            id = given
        } else if environment == .xcode || environment == .localTesting {
            // Xcode's StoreKit Testing signs app transactions without an appTransactionId (accepted only for apps
            // in the development setting, as every Xcode proof): one is derived from what stays the same for the
            // test install, so grandfathering and the paid edition can be tried in Xcode.
            id = Self.localAppTransactionID(payload)
        } else {
            throw .proofRejected(code: "malformed_proof", detail: "The app transaction carries no appTransactionId.")
        }
        return AppTransactionFacts(
            appTransactionID: id, environment: AppleTransactionNormalizer.storeEnvironment(environment),
            variant: variant, originalApplicationVersion: payload.originalApplicationVersion,
            originalPurchaseDate: payload.originalPurchaseDate.map(Date.init(appleMilliseconds:)))
    }

    /// The id of an Xcode (or LocalTesting) app transaction that has none: `xcode.` and the first 32 hex digits of
    /// the SHA-256 of its environment, bundle id, original purchase date and original application version.
    static func localAppTransactionID(_ payload: AppleAppTransactionPayload) -> String {
        let parts = [
            payload.environment ?? "", payload.bundleId ?? "", payload.originalPurchaseDate.map { String($0) } ?? "",
            payload.originalApplicationVersion ?? "",
        ]
        let digest = SHA256.hash(data: Data(parts.joined(separator: "|").utf8))
        return "xcode." + digest.map { String(format: "%02x", $0) }.joined().prefix(32)
    }
}
