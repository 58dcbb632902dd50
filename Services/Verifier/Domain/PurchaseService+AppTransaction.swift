import Foundation
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

extension PurchaseService {
    /// `POST /v1/purchases` with `signed_app_transaction`: the app transaction presented on its own. The answer's
    /// customer lists the products it proves (`product_grants`).
    func purchaseAppTransaction(_ jws: String, request: PurchaseRequest, appID: String, requestID: String?)
        async throws -> CustomerAnswer<PurchaseResponse>
    {
        let (facts, answer) = try await presentAppTransaction(
            jws, appUserID: request.appUserID, source: .purchase, appID: appID, requestID: requestID)
        return CustomerAnswer(
            PurchaseResponse(
                transactions: [], outcomes: [],
                appTransaction: AppTransactionResult(facts: facts, outcome: answer.outcome)),
            customerJSON: try answer.customerJSON())
    }

    /// Verifies an app transaction, logs the attempt, and has entitlements keep it with the presenting customer
    /// (once per `appTransactionId`; another customer takes it by the transfer policy, and only a restore moves it
    /// back to a customer it left). Throws the verdict when it does not verify.
    func presentAppTransaction(
        _ jws: String, appUserID: String, source: ApplySource, appID: String, requestID: String?
    ) async throws -> (AppTransactionFacts, AppTransactionApplyResponse) {
        let start = ContinuousClock.now
        let facts: AppTransactionFacts
        do {
            facts = try await apple.verifyAppTransaction(jws, credentials: try await appleCredentials(appID))
        } catch let error as VerifierError {
            await transactions.log(
                .failed(
                    error, kind: .appTransaction, appID: appID, appUserID: appUserID, requestID: requestID,
                    since: start))
            throw error
        }
        await transactions.log(
            .verified(
                [facts.appTransactionID], kind: .appTransaction, appID: appID, appUserID: appUserID,
                requestID: requestID, since: start))
        do {
            let answer = try await projections.entitlements.applyAppTransaction(
                AppTransactionApplyRequest(appUserID: appUserID, source: source, appTransaction: facts),
                appID: appID, requestID: requestID)
            return (facts, answer)
        } catch let verdict as RemoteProblem {
            throw verdict
        } catch {
            // Nothing is kept until entitlements answers: the app sends the app transaction again.
            throw VerifierError.applyPending(reason: "the entitlements service did not answer")
        }
    }
}
