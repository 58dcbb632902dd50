import Foundation
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

extension PurchaseService {
    /// Most proofs one restore may carry.
    static let maximumRestoreProofs = 200

    /// Verifies every proof, records what they prove, and applies it all for `appUserID` with the app's transfer
    /// policy. A proof that does not verify is reported in `rejected` and the others still count; a store that
    /// cannot answer fails the whole restore with 503 (nothing is lost: what was recorded is applied on retry).
    /// An app transaction is presented first, so that the answer's customer shows what it proves as well.
    func restore(_ request: RestoreRequest, appUserID: String, appID: String, requestID: String?) async throws
        -> CustomerAnswer<RestoreResponse>
    {
        let proofs = try Self.proofs(of: request)
        let presenter = Presenter(appUserID: appUserID, deviceID: request.deviceID)
        var recorded: [StoreTransaction] = []
        var rejected: [RejectedProof] = []
        var consumes = false
        var appTransaction: (result: AppTransactionResult, customerJSON: String)?
        if let jws = request.signedAppTransaction {
            do {
                let (facts, answer) = try await presentAppTransaction(
                    jws, appUserID: appUserID, source: .restore, appID: appID, requestID: requestID)
                appTransaction = (
                    AppTransactionResult(facts: facts, outcome: answer.outcome), try answer.customerJSON()
                )
            } catch let error as VerifierError where error.isVerdict {
                rejected.append(
                    RejectedProof(pointer: "/signed_app_transaction", code: error.code, detail: error.detail))
            } catch let verdict as RemoteProblem where (400..<500).contains(verdict.status.code) {
                rejected.append(
                    RejectedProof(pointer: "/signed_app_transaction", code: verdict.code, detail: verdict.detail))
            }
        }
        for (pointer, proof) in proofs {
            let start = ContinuousClock.now
            do {
                let facts = try await verify(proof, appID: appID)
                let entry = VerificationAttempt.verified(
                    facts.map(\.transaction.transactionID), kind: proof.kind, appID: appID, appUserID: appUserID,
                    requestID: requestID, since: start)
                recorded += try await transactions.record(facts, appID: appID, presenter: presenter, attempt: entry)
                await acknowledge(facts, appID: appID)
                consumes = consumes || facts.contains { $0.consumption != nil }
            } catch let error as VerifierError {
                await transactions.log(
                    .failed(
                        error, kind: proof.kind, appID: appID, appUserID: appUserID, requestID: requestID,
                        since: start))
                guard error.isVerdict else { throw error }
                rejected.append(RejectedProof(pointer: pointer, code: error.code, detail: error.detail))
            }
        }
        var seen: Set<String> = []
        let unique = recorded.filter { seen.insert("\($0.store.rawValue)/\($0.transactionID)").inserted }
        if unique.isEmpty, let appTransaction {
            return CustomerAnswer(
                RestoreResponse(
                    transactions: [], outcomes: [], rejected: rejected, customer: nil,
                    appTransaction: appTransaction.result),
                customerJSON: appTransaction.customerJSON)
        }
        let applied = try await apply(
            unique, appID: appID, presenter: presenter, source: .restore, requestID: requestID)
        if consumes { await consumer?.consumeNow(unique, appID: appID) }
        return CustomerAnswer(
            RestoreResponse(
                transactions: unique, outcomes: applied.response.outcomes, rejected: rejected, customer: nil,
                appTransaction: appTransaction?.result),
            customerJSON: applied.customerJSON)
    }

    /// The request's proofs, each with the JSON pointer it came from.
    static func proofs(of request: RestoreRequest) throws(RequestError) -> [(String, StoreProof)] {
        var proofs: [(String, StoreProof)] = []
        if let receipt = request.receiptData {
            proofs.append(("/receipt_data", try StoreProof(StoreProofFields(receiptData: receipt))))
        }
        for (index, jws) in (request.signedTransactions ?? []).enumerated() {
            guard !jws.isEmpty else { throw .invalid("/signed_transactions/\(index)", "must not be empty") }
            proofs.append(("/signed_transactions/\(index)", .signedTransaction(jws)))
        }
        for (index, play) in (request.purchaseTokens ?? []).enumerated() {
            let fields = StoreProofFields(
                purchaseToken: play.purchaseToken, productID: play.productID, purchaseKind: play.purchaseKind)
            do {
                proofs.append(("/purchase_tokens/\(index)", try StoreProof(fields)))
            } catch {
                throw .invalid("/purchase_tokens/\(index)", "needs a non-empty purchase_token and product_id")
            }
        }
        if let appTransaction = request.signedAppTransaction, appTransaction.isEmpty {
            throw .invalid("/signed_app_transaction", "must not be empty")
        }
        guard !proofs.isEmpty || request.signedAppTransaction != nil else {
            throw .invalid("/", "give receipt_data, signed_transactions, purchase_tokens or signed_app_transaction")
        }
        guard proofs.count <= maximumRestoreProofs else {
            throw .invalid("/", "at most \(maximumRestoreProofs) proofs per restore")
        }
        return proofs
    }
}
