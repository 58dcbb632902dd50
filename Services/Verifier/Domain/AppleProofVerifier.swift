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

    /// Verifies a legacy app receipt: read and checked here first (a forgery never reaches Apple), then
    /// confirmed with `verifyReceipt`, whose answer is the source of the transactions.
    func verifyReceipt(_ base64: String, credentials: AppleCredentials) async throws(VerifierError)
        -> [StoreTransaction]
    {
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
