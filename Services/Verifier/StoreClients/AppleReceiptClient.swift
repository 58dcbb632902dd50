import AsyncHTTPClient
import Foundation
import NIOCore
import ShopkeeperModels
import ShopkeeperStores

/// Apple's legacy `verifyReceipt`: production first, the sandbox on 21007, production on 21008 (one
/// switch at most), retries with backoff on 21002, 21005, 21009, 21100-21199, 5xx and timeouts; every
/// other non-zero status is final.
struct AppleReceiptClient: Sendable {
    let http: StoreHTTP
    let productionURL: URL
    let sandboxURL: URL
    let retry: RetryPolicy

    /// A successful answer (status 0, or 21006 which still carries the receipt) and who gave it.
    func verify(receiptData: String, password: String?, startingAt start: StoreEnvironment = .production)
        async throws(VerifierError) -> VerifyReceiptResponse
    {
        var environment = start
        var switched = false
        while true {
            let response = try await call(environment, receiptData: receiptData, password: password)
            switch response.status {
            case .valid, .subscriptionExpired:
                return response
            case .sandboxReceiptSentToProduction where environment == .production && !switched:
                environment = .sandbox
                switched = true
            case .productionReceiptSentToSandbox where environment == .sandbox && !switched:
                environment = .production
                switched = true
            default:
                throw Self.verdict(response.status)
            }
        }
    }

    /// One environment, retried while Apple says the trouble is temporary.
    private func call(_ environment: StoreEnvironment, receiptData: String, password: String?)
        async throws(VerifierError) -> VerifyReceiptResponse
    {
        let url = environment == .production ? productionURL : sandboxURL
        let body: Data
        do {
            body = try JSONEncoder().encode(
                VerifyReceiptRequest(receiptData: receiptData, password: password, excludeOldTransactions: false))
        } catch {
            throw .proofRejected(code: "malformed_receipt", detail: "The receipt cannot be sent to Apple.")
        }
        return try await retry.run(store: "App Store") { (_: Int) async throws(StoreAttemptError) in
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = .POST
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
            let answer = try await http.sendSorted(
                request, endpoint: .verifyReceipt, what: "verifyReceipt (\(environment.rawValue))")
            guard answer.status == 200,
                let response = try? JSONDecoder().decode(VerifyReceiptResponse.self, from: answer.data)
            else {
                throw .retryable(
                    reason: "verifyReceipt answered \(answer.status) without a readable body", retryAfter: nil)
            }
            if response.status.isRetryable {
                throw .retryable(reason: "verifyReceipt status \(response.status.code)", retryAfter: nil)
            }
            return response
        }
    }

    /// The verdict for a final non-zero status.
    static func verdict(_ status: VerifyReceiptStatus) -> VerifierError {
        let (code, detail): (String, String) =
            switch status {
            case .invalidRequest: ("malformed_receipt", "Apple could not read the receipt (21000).")
            case .notAuthenticated: ("invalid_signature", "Apple could not authenticate the receipt (21003).")
            case .sharedSecretMismatch:
                (
                    "shared_secret_mismatch",
                    "The app's shared secret does not match Apple's (21004); fix the store credentials."
                )
            case .sandboxReceiptSentToProduction, .productionReceiptSentToSandbox:
                ("wrong_environment", "Apple sent the receipt back and forth between environments (\(status.code)).")
            case .accountNotFound: ("account_not_found", "Apple cannot find the customer's account (21010).")
            default: ("receipt_rejected", "Apple rejected the receipt with status \(status.code).")
            }
        return .proofRejected(code: code, detail: detail)
    }
}
