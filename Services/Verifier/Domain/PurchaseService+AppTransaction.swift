import Foundation
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

extension PurchaseService {
    /// `POST /v1/purchases` with `signed_app_transaction`: verifies it, logs the attempt, and has entitlements keep
    /// it with the presenting customer (once per `appTransactionId`; another customer takes it by the transfer
    /// policy). The answer's customer lists the products it proves (`product_grants`).
    func purchaseAppTransaction(_ jws: String, request: PurchaseRequest, appID: String, requestID: String?)
        async throws -> PurchaseResponse
    {
        let start = ContinuousClock.now
        let facts: AppTransactionFacts
        do {
            facts = try await apple.verifyAppTransaction(jws, credentials: try await appleCredentials(appID))
        } catch let error as VerifierError {
            await transactions.log(
                .failed(
                    error, kind: .appTransaction, appID: appID, appUserID: request.appUserID, requestID: requestID,
                    since: start))
            throw error
        }
        await transactions.log(
            .verified(
                [facts.appTransactionID], kind: .appTransaction, appID: appID, appUserID: request.appUserID,
                requestID: requestID, since: start))
        let answer: AppTransactionApplyResponse
        do {
            answer = try await projections.entitlements.applyAppTransaction(
                AppTransactionApplyRequest(appUserID: request.appUserID, source: .purchase, appTransaction: facts),
                appID: appID, requestID: requestID)
        } catch let verdict as RemoteProblem {
            throw verdict
        } catch {
            // Nothing is kept until entitlements answers: the app sends the app transaction again.
            throw VerifierError.applyPending(reason: "the entitlements service did not answer")
        }
        return PurchaseResponse(
            transactions: [], outcomes: [], customer: answer.customer,
            appTransaction: AppTransactionResult(facts: facts, outcome: answer.outcome))
    }
}
