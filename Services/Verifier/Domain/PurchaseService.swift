import Foundation
import Logging
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

/// Verifies proofs for an app and records what they prove: the heart of `POST /v1/purchases`.
struct PurchaseService: Sendable, RequestLogging {
    let credentials: any CredentialsRepository
    let transactions: any TransactionRepository
    let apple: AppleProofVerifier
    let google: GoogleProofVerifier
    let projections: FactProjections
    /// Its own log lines' and the consumer's (``RequestLogging/logging(to:)`` sets both).
    var logger: Logger {
        didSet { consumer?.logger = logger }
    }
    /// Consumes granted Play consumables at once, for apps that ask for it; `nil`: left to the background worker.
    var consumer: GoogleConsumer? = nil

    /// Verifies `request`'s proof, records the transactions once, and answers with them as recorded; counts the
    /// purchase by store and outcome (``VerifierMetrics/purchases``).
    func purchase(_ request: PurchaseRequest, appID: String, requestID: String?) async throws
        -> CustomerAnswer<PurchaseResponse>
    {
        let store = VerifierMetrics.store(of: request.proof)
        do {
            let response = try await recordPurchase(request, appID: appID, requestID: requestID)
            VerifierMetrics.purchase(store: store, outcome: .of(response.response.outcomes))
            return response
        } catch {
            VerifierMetrics.purchase(store: store, outcome: .of(error))
            throw error
        }
    }

    /// ``purchase(_:appID:requestID:)`` without the count.
    private func recordPurchase(_ request: PurchaseRequest, appID: String, requestID: String?) async throws
        -> CustomerAnswer<PurchaseResponse>
    {
        let proof = try StoreProof(request.proof)
        if case .appTransaction(let jws) = proof {
            return try await purchaseAppTransaction(jws, request: request, appID: appID, requestID: requestID)
        }
        let presenter = Presenter(appUserID: request.appUserID, deviceID: request.deviceID)
        let start = ContinuousClock.now
        let recorded: [StoreTransaction]
        let consumes: Bool
        do {
            let facts = try await verify(proof, appID: appID)
            consumes = facts.contains { $0.consumption != nil }
            let entry = VerificationAttempt.verified(
                facts.map(\.transaction.transactionID), kind: proof.kind, appID: appID, appUserID: request.appUserID,
                requestID: requestID, since: start)
            // The facts and the attempt that proved them are written together.
            recorded = try await transactions.record(facts, appID: appID, presenter: presenter, attempt: entry)
            await acknowledge(facts, appID: appID)
        } catch let error as VerifierError {
            await transactions.log(
                .failed(
                    error, kind: proof.kind, appID: appID, appUserID: request.appUserID, requestID: requestID,
                    since: start))
            throw error
        }
        let applied = try await apply(
            recorded, appID: appID, presenter: presenter, source: .purchase, appVersion: request.appVersion,
            requestID: requestID)
        // Granted: a consumable may now be consumed at Google, so the customer can buy it again.
        if consumes { await consumer?.consumeNow(recorded, appID: appID) }
        return CustomerAnswer(
            PurchaseResponse(transactions: recorded, outcomes: applied.response.outcomes),
            customerJSON: applied.customerJSON)
    }

    /// Hands recorded facts to the subscriptions and entitlements services and records how that went. A verdict (device limit,
    /// another owner...) is passed on as it is; no answer leaves the facts pending for the background retry.
    /// `appVersion`: the presenting build's, kept with a purchase recorded for the first time (a pending apply the
    /// background retry finishes keeps none).
    func apply(
        _ recorded: [StoreTransaction], appID: String, presenter: Presenter, source: ApplySource,
        appVersion: String? = nil, requestID: String?
    ) async throws -> CustomerAnswer<ApplyOutcomes> {
        let request = ApplyRequest(
            appUserID: presenter.appUserID, deviceID: presenter.deviceID, source: source, transactions: recorded,
            appVersion: appVersion)
        do {
            // Not marked here: the background worker marks facts the entitlements service has applied, which keeps a
            // write of a wide row off every purchase.
            return try await projections.apply(request, appID: appID, requestID: requestID)
        } catch let verdict as RemoteProblem {
            await transactions.markRefused(recorded, appID: appID, for: presenter.appUserID, code: verdict.code)
            throw verdict
        } catch {
            logger.warning(
                "recorded facts were not applied; the background retry will",
                metadata: ["app_id": "\(appID)", "error": "\(error)"])
            throw VerifierError.applyPending(reason: "the subscriptions or entitlements service did not answer")
        }
    }

    /// Whether a saved proof is still good now: `invalid` when it does not verify, else `revoked`,
    /// `expired` or `valid` from the newest facts (the recorded ones when they know more).
    func validate(_ fields: StoreProofFields, appID: String, requestID: String?) async throws
        -> ReceiptValidationResponse
    {
        let proof = try StoreProof(fields)
        let facts: [VerifiedFact]
        do {
            facts = try await verifyAndLog(proof, appID: appID, requestID: requestID)
        } catch let error as VerifierError where error.isVerdict {
            return ReceiptValidationResponse(status: .invalid, code: error.code, transactions: [])
        }
        var current = facts.map(\.transaction)
        if case .signedTransaction = proof, let transaction = current.first {
            do {
                if let latest = try await apple.currentTransaction(
                    transaction.transactionID, credentials: try await appleCredentials(appID))
                {
                    current = [latest]
                }
            } catch let error as VerifierError where error.isVerdict {
                // Apple no longer vouches for it (unknown transaction, another app): not valid now.
                return ReceiptValidationResponse(status: .invalid, code: error.code, transactions: [])
            }
        }
        if let store = current.first?.store {
            let known = try await transactions.transactions(
                appID: appID, store: store, ids: current.map(\.transactionID))
            current = current.map { fact in
                known.first { $0.transactionID == fact.transactionID && $0.revocationDate != nil } ?? fact
            }
            await applyRevocations(current, appID: appID, requestID: requestID)
        }
        return ReceiptValidationResponse(status: Self.status(of: current, now: Date()), transactions: current)
    }

    /// Refunds the store reports for recorded transactions end their grants now; on failure they stay pending for
    /// the background retry, so the answer to the app does not wait on it.
    private func applyRevocations(_ current: [StoreTransaction], appID: String, requestID: String?) async {
        do {
            let news = try await transactions.recordRevocations(current, appID: appID)
            guard !news.isEmpty else { return }
            _ = try await apply(
                news, appID: appID, presenter: Presenter(appUserID: nil, deviceID: nil), source: .validation,
                requestID: requestID)
        } catch {
            logger.warning(
                "a refund seen by validation was not applied yet",
                metadata: ["app_id": "\(appID)", "error": "\(error)"])
        }
    }

    /// `revoked` if any transaction is revoked, `expired` if all that expire have, else `valid`.
    static func status(of transactions: [StoreTransaction], now: Date) -> ProofStatus {
        if transactions.contains(where: { $0.revocationDate != nil }) { return .revoked }
        let expiring = transactions.compactMap(\.expiresDate)
        if !expiring.isEmpty, expiring.count == transactions.count, expiring.allSatisfy({ $0 <= now }) {
            return .expired
        }
        return transactions.isEmpty ? .invalid : .valid
    }

    /// The transactions `proof` proves for `appID`, not yet recorded.
    func verify(_ proof: StoreProof, appID: String) async throws -> [VerifiedFact] {
        switch proof {
        case .signedTransaction(let jws):
            let transaction = try await apple.verifySignedTransaction(
                jws, credentials: try await appleCredentials(appID))
            return [VerifiedFact(transaction: transaction, proofKind: .signedTransaction, rawProof: jws)]
        case .receipt(let receipt):
            let transactions = try await apple.verifyReceipt(receipt, credentials: try await appleCredentials(appID))
            guard !transactions.isEmpty else {
                throw VerifierError.proofRejected(
                    code: "no_transactions", detail: "The receipt is genuine but holds no in-app purchase.")
            }
            return transactions.map { VerifiedFact(transaction: $0, proofKind: .receipt, rawProof: receipt) }
        case .playToken(let token, let productID, let kind):
            guard let credentials = try await credentials.google(appID: appID) else {
                throw VerifierError.storeNotConfigured(.google)
            }
            let verified = try await google.verify(
                token: token, productID: productID, kind: kind, credentials: credentials)
            return [
                VerifiedFact(
                    transaction: verified.transaction, proofKind: .playToken, rawProof: proof.raw,
                    acknowledgement: verified.acknowledgement, consumption: verified.consumption)
            ]
        case .appTransaction:
            throw VerifierError.proofRejected(
                code: "no_transactions",
                detail: "An app transaction proves no in-app purchase; send it alone to POST /v1/purchases.")
        }
    }

    /// Acknowledges recorded Play purchases. Only after recording, so nothing is acknowledged that is not kept;
    /// a failure is logged and left to the next submission of the token (Google allows three days).
    func acknowledge(_ facts: [VerifiedFact], appID: String) async {
        let pending = facts.compactMap(\.acknowledgement)
        guard !pending.isEmpty else { return }
        do {
            guard let credentials = try await credentials.google(appID: appID) else { return }
            for acknowledgement in pending {
                try await google.client.acknowledge(acknowledgement, credentials: credentials)
            }
        } catch {
            logger.warning(
                "could not acknowledge a Play purchase; the next submission retries",
                metadata: ["app_id": "\(appID)", "error": "\(error)"])
        }
    }

    func appleCredentials(_ appID: String) async throws -> AppleCredentials {
        guard let found = try await credentials.apple(appID: appID) else {
            throw VerifierError.storeNotConfigured(.apple)
        }
        return found
    }

    /// Verifies `proof` without recording its facts, and logs the attempt.
    private func verifyAndLog(_ proof: StoreProof, appID: String, requestID: String?) async throws -> [VerifiedFact] {
        let start = ContinuousClock.now
        do {
            let facts = try await verify(proof, appID: appID)
            await transactions.log(
                .verified(
                    facts.map(\.transaction.transactionID), kind: proof.kind, appID: appID, appUserID: nil,
                    requestID: requestID, since: start))
            return facts
        } catch let error as VerifierError {
            await transactions.log(
                .failed(error, kind: proof.kind, appID: appID, appUserID: nil, requestID: requestID, since: start))
            throw error
        }
    }
}
