import ShopkeeperModels

/// A ``TransactionRepository`` that counts every verification attempt it records
/// (``VerifierMetrics/verifications`` and ``VerifierMetrics/verificationFailures``), so the metrics and the audit
/// log can never disagree about what was attempted. Everything else is passed through.
struct MeasuredTransactionRepository<Base: TransactionRepository>: TransactionRepository {
    let base: Base

    init(_ base: Base) {
        self.base = base
    }

    func record(_ facts: [VerifiedFact], appID: String, presenter: Presenter, attempt: VerificationAttempt?)
        async throws -> [StoreTransaction]
    {
        let recorded = try await base.record(facts, appID: appID, presenter: presenter, attempt: attempt)
        if let attempt, !facts.isEmpty { VerifierMetrics.attempt(attempt) }
        return recorded
    }

    func transactions(appID: String, store: StorePlatform, ids: [String]) async throws -> [StoreTransaction] {
        try await base.transactions(appID: appID, store: store, ids: ids)
    }

    func log(_ attempt: VerificationAttempt) async {
        VerifierMetrics.attempt(attempt)
        await base.log(attempt)
    }

    func markApplied(_ transactions: [StoreTransaction], appID: String, for appUserID: String?) async {
        await base.markApplied(transactions, appID: appID, for: appUserID)
    }

    func markRefused(_ transactions: [StoreTransaction], appID: String, for appUserID: String?, code: String) async {
        await base.markRefused(transactions, appID: appID, for: appUserID, code: code)
    }

    func sweepApplied() async throws -> Int {
        try await base.sweepApplied()
    }

    func claimPending(limit: Int, base limitBase: Duration) async throws -> [PendingFact] {
        try await base.claimPending(limit: limit, base: limitBase)
    }

    func releasePending(_ facts: [PendingFact]) async throws {
        try await base.releasePending(facts)
    }

    func recordRevocations(_ transactions: [StoreTransaction], appID: String) async throws -> [StoreTransaction] {
        try await base.recordRevocations(transactions, appID: appID)
    }
}
