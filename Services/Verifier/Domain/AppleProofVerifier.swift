import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// Verifies Apple proofs for one app: StoreKit 2 signed transactions offline, against the app's
/// bundle id and accepted environments.
struct AppleProofVerifier: Sendable {
    let signedData: AppleSignedDataVerifier
    /// Whether `Xcode` and `LocalTesting` transactions are accepted (development only).
    let allowLocalEnvironments: Bool

    /// Verifies a StoreKit 2 `signedTransaction` and checks it belongs to the app.
    func verifySignedTransaction(_ jws: String, credentials: AppleCredentials) async throws(VerifierError)
        -> StoreTransaction
    {
        let payload: AppleTransactionPayload
        do {
            payload = try await signedData.verify(jws, as: AppleTransactionPayload.self)
        } catch {
            throw .proofRejected(code: error.code, detail: error.description)
        }
        try check(bundleID: payload.bundleId, environment: payload.environment, credentials: credentials)
        return try AppleTransactionNormalizer.normalize(payload)
    }

    /// The bundle id and the environment of Apple data must be the app's.
    func check(bundleID: String?, environment rawEnvironment: String?, credentials: AppleCredentials)
        throws(VerifierError)
    {
        guard bundleID == credentials.bundleID else {
            throw .proofRejected(
                code: "wrong_bundle_id",
                detail: "The proof is for bundle id '\(bundleID ?? "")', not this app's '\(credentials.bundleID)'.")
        }
        guard let rawEnvironment, let environment = AppleEnvironment(rawValue: rawEnvironment) else {
            throw .proofRejected(code: "wrong_environment", detail: "The proof names no known App Store environment.")
        }
        switch environment {
        case .xcode, .localTesting:
            guard allowLocalEnvironments else {
                throw .proofRejected(
                    code: "wrong_environment",
                    detail: "\(environment.rawValue) transactions are accepted only in development configuration.")
            }
        case .production, .sandbox:
            let accepted: StoreEnvironment = environment == .production ? .production : .sandbox
            guard credentials.environments.contains(accepted) else {
                throw .proofRejected(
                    code: "wrong_environment",
                    detail: "This app does not accept \(environment.rawValue) purchases.")
            }
        }
    }
}
