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
        guard let id = payload.appTransactionId, !id.isEmpty, id.count <= 128 else {
            throw .proofRejected(code: "malformed_proof", detail: "The app transaction carries no appTransactionId.")
        }
        guard let environment = payload.environment.flatMap(AppleEnvironment.init(rawValue:)) else {
            throw .proofRejected(code: "wrong_environment", detail: "The proof names no known App Store environment.")
        }
        return AppTransactionFacts(
            appTransactionID: id, environment: AppleTransactionNormalizer.storeEnvironment(environment),
            variant: variant, originalApplicationVersion: payload.originalApplicationVersion,
            originalPurchaseDate: payload.originalPurchaseDate.map(Date.init(appleMilliseconds:)))
    }
}
