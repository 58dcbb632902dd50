import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// Verifies Apple proofs for an app: StoreKit 2 signed transactions offline, legacy receipts read
/// locally (signature, chain, bundle id, environment) and then confirmed by Apple, always against the
/// app's bundle id and accepted environments.
struct AppleProofVerifier: Sendable {
    let signedData: AppleSignedDataVerifier
    let receiptReader: AppReceiptReader
    let receipts: AppleReceiptClient
    let api: AppStoreServerAPIClient
    /// Whether `Xcode` and `LocalTesting` proofs may be accepted at all (never in a production deployment); each app
    /// still decides with its StoreKit test certificate and its mode.
    let allowLocalEnvironments: Bool

    /// Verifies a StoreKit 2 `signedTransaction` and checks it belongs to the app.
    func verifySignedTransaction(_ jws: String, credentials: AppleCredentials) async throws(VerifierError)
        -> StoreTransaction
    {
        let payload = try await verifySigned(jws, as: AppleTransactionPayload.self, credentials: credentials)
        try check(bundleID: payload.bundleId, environment: payload.environment, credentials: credentials)
        return try AppleTransactionNormalizer.normalize(payload)
    }

    /// Verifies an Apple JWS for the app: signed by Apple (its chain to a trusted root, ``AppleSignedDataVerifier``),
    /// or, when it claims a local environment (`Xcode`, `LocalTesting`), only where such proofs may be accepted
    /// (``checkLocalEnvironment(_:credentials:)``), as ``verifyLocal(_:claiming:as:credentials:)`` says. The claim read
    /// before verifying only picks the check: each check reads the whole JWS, and the environment is checked again
    /// after it.
    func verifySigned<Payload: AppleSignedPayload>(
        _ jws: String, as _: Payload.Type, credentials: AppleCredentials
    ) async throws(VerifierError) -> Payload {
        let claimed = CompactJWS(jws)?.appleDecodedPayload(as: Payload.self)?.environment
            .flatMap(AppleEnvironment.init(rawValue:))
        do {
            if let claimed, !claimed.isSignedByApple {
                try checkLocalEnvironment(claimed, credentials: credentials)
                return try verifyLocal(jws, claiming: claimed, as: Payload.self, credentials: credentials)
            }
            return try await signedData.verify(jws, as: Payload.self)
        } catch let error as AppleSignedDataError {
            throw .proofRejected(code: error.code, detail: error.description)
        } catch let error as VerifierError {
            throw error
        } catch {
            throw .proofRejected(code: "malformed_proof", detail: "The proof could not be verified.")
        }
    }

    /// Whether the app may accept a proof of a local environment (`Xcode`, `LocalTesting`): never with local
    /// environments switched off for this verifier (always in a production deployment), never for an app in
    /// production mode (one that accepts real-money purchases).
    func checkLocalEnvironment(_ environment: AppleEnvironment, credentials: AppleCredentials) throws(VerifierError) {
        guard allowLocalEnvironments else {
            throw .proofRejected(
                code: "wrong_environment",
                detail: "\(environment.rawValue) transactions are accepted only in development configuration.")
        }
        guard !credentials.isInProduction else {
            throw .proofRejected(
                code: "test_environment_in_production",
                detail: "\(environment.rawValue) proofs are signed on a developer's Mac, not by Apple: they are never "
                    + "granted for an app in production mode (its Apple credentials accept production purchases). "
                    + "Use an app whose environments are [sandbox] for StoreKit Testing in Xcode.")
        }
    }

    /// Verifies a StoreKit 2 signed app transaction (`AppTransaction`) and checks it belongs to the app: its bundle id,
    /// its environment (`receiptType`) and, in production, its App Apple ID (Apple's `verifyAndDecodeAppTransaction`).
    func verifySignedAppTransaction(_ jws: String, credentials: AppleCredentials) async throws(VerifierError)
        -> AppleAppTransactionPayload
    {
        let payload = try await verifySigned(jws, as: AppleAppTransactionPayload.self, credentials: credentials)
        try check(bundleID: payload.bundleId, environment: payload.environment, credentials: credentials)
        try checkAppAppleID(payload.appAppleId, environment: payload.environment, credentials: credentials)
        return payload
    }

    /// Verifies a legacy app receipt: read and checked here first (a forgery never reaches Apple), then
    /// confirmed with `verifyReceipt`, whose answer is the source of the transactions. A receipt of a local
    /// environment (StoreKit Testing in Xcode) is checked as ``verifyLocalReceipt(_:environment:credentials:)`` says.
    func verifyReceipt(_ base64: String, credentials: AppleCredentials) async throws(VerifierError)
        -> [StoreTransaction]
    {
        // The receipt type read before verifying only picks the check, as a JWS's environment does.
        if let claimed = (try? AppReceiptReader.unverified(base64: base64)).flatMap({
            Self.environment(receiptType: $0.receiptType).flatMap(AppleEnvironment.init(rawValue:))
        }), !claimed.isSignedByApple {
            try checkLocalEnvironment(claimed, credentials: credentials)
            return try verifyLocalReceipt(base64, environment: claimed, credentials: credentials)
        }
        let local: AppReceipt
        do {
            local = try await receiptReader.read(base64: base64)
        } catch {
            throw .proofRejected(code: error.code, detail: error.description)
        }
        try check(
            bundleID: local.bundleId, environment: Self.environment(receiptType: local.receiptType),
            credentials: credentials)
        if let key = credentials.apiKey {
            return try await transactionsFromHistory(of: local, credentials: credentials, key: key)
        }
        let start: StoreEnvironment = credentials.environments.contains(.production) ? .production : .sandbox
        let response = try await receipts.verify(
            receiptData: base64, password: credentials.sharedSecret, startingAt: start)
        try check(bundleID: response.receipt?.bundleId, environment: response.environment, credentials: credentials)
        return try AppleReceiptNormalizer.normalize(response)
    }

    /// Apple's recommended path once `verifyReceipt` is retired: a transaction id from the receipt, then the
    /// customer's whole history from the App Store Server API, each transaction a verified JWS.
    private func transactionsFromHistory(of receipt: AppReceipt, credentials: AppleCredentials, key: AppStoreAPIKey)
        async throws(VerifierError) -> [StoreTransaction]
    {
        guard let purchase = receipt.inAppPurchases.first else {
            throw .proofRejected(
                code: "no_transactions", detail: "The receipt is genuine but holds no in-app purchase.")
        }
        let pages = try await api.history(purchase.transactionId, credentials: credentials, key: key)
        var transactions: [StoreTransaction] = []
        var seen: Set<String> = []
        for page in pages {
            try check(bundleID: page.bundleId, environment: page.environment, credentials: credentials)
            try checkAppAppleID(page.appAppleId, environment: page.environment, credentials: credentials)
            for jws in page.signedTransactions ?? [] {
                let transaction = try await verifySignedTransaction(jws, credentials: credentials)
                if seen.insert(transaction.transactionID).inserted { transactions.append(transaction) }
            }
        }
        return transactions
    }

    /// The transaction as Apple knows it now (a refund since the JWS was signed shows), when the app has an
    /// App Store Server API key; `nil` without one.
    func currentTransaction(_ transactionID: String, credentials: AppleCredentials) async throws(VerifierError)
        -> StoreTransaction?
    {
        guard let key = credentials.apiKey else { return nil }
        let jws = try await api.transactionInfo(transactionID, credentials: credentials, key: key)
        return try await verifySignedTransaction(jws, credentials: credentials)
    }

    /// Production answers of the App Store Server API carry the App Apple ID, which must be the app's.
    func checkAppAppleID(_ appAppleID: Int64?, environment: String?, credentials: AppleCredentials)
        throws(VerifierError)
    {
        guard environment == AppleEnvironment.production.rawValue, let expected = credentials.appAppleID else { return }
        guard appAppleID == expected else {
            throw .proofRejected(
                code: "wrong_app_apple_id",
                detail:
                    "Apple answered for App Apple ID \(appAppleID.map(String.init) ?? "none"), not this app's \(expected)."
            )
        }
    }

    /// The App Store environment of a receipt's type (`ProductionSandbox` is the sandbox).
    static func environment(receiptType: String?) -> String? {
        switch receiptType {
        case "Production", "ProductionVPP": AppleEnvironment.production.rawValue
        case "ProductionSandbox", "ProductionVPPSandbox": AppleEnvironment.sandbox.rawValue
        case "Xcode": AppleEnvironment.xcode.rawValue
        case "LocalTesting": AppleEnvironment.localTesting.rawValue
        default: nil
        }
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
            try checkLocalEnvironment(environment, credentials: credentials)
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
