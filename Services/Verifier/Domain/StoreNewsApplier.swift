import Logging
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

/// Records and applies what Shopkeeper learned by asking a store (not from a customer's proof): refunds found in
/// Apple's refund history, a subscription's state read again after its renewal date was extended. Both go the way a
/// store notification's facts go: recorded once per transaction (``TransactionRepository/record(_:appID:presenter:attempt:)``,
/// which keeps a revocation once known and a later period end), then applied as news for the purchases' current
/// owners, never for a presenter. A fact whose apply fails stays pending for the background retry.
struct StoreNewsApplier: Sendable, RequestLogging {
    let transactions: any TransactionRepository
    let projections: FactProjections
    var logger: Logger

    /// Records the refunds of `refunded` (verified, revoked transactions of `appID`) that Shopkeeper had not recorded,
    /// through the path a refund seen by receipt validation takes (``TransactionRepository/recordRevocations(_:appID:)``
    /// for a known transaction, a new fact for an unknown one), applies them, and returns the ids of those that were
    /// news. A refund already recorded (from a notification, validation or an earlier lookup) is not news and is not
    /// applied again.
    func applyRefunds(_ refunded: [VerifiedFact], appID: String, requestID: String?) async throws -> Set<String> {
        let revoked = refunded.filter { $0.transaction.revocationDate != nil }
        guard let store = revoked.first?.transaction.store else { return [] }
        let known = Set(
            try await transactions.transactions(
                appID: appID, store: store, ids: revoked.map(\.transaction.transactionID)
            ).map(\.transactionID))
        // Atomic per transaction: of two lookups (or a lookup and a notification) at once, one sees the news.
        var news = try await transactions.recordRevocations(
            revoked.map(\.transaction).filter { known.contains($0.transactionID) }, appID: appID)
        let unknown = revoked.filter { !known.contains($0.transaction.transactionID) }
        news += try await transactions.record(
            unknown, appID: appID, presenter: Presenter(appUserID: nil, deviceID: nil), attempt: nil)
        try await apply(news, renewals: [], appID: appID, requestID: requestID)
        return Set(news.map(\.transactionID))
    }

    /// Records `facts` (the store's current word on a subscription) and applies them.
    func apply(_ facts: NotificationFacts, appID: String, requestID: String?) async throws {
        let recorded = try await transactions.record(
            facts.facts, appID: appID, presenter: Presenter(appUserID: nil, deviceID: nil), attempt: nil)
        try await apply(recorded, renewals: facts.renewals, appID: appID, requestID: requestID)
    }

    /// Applies recorded news; a verdict of entitlements is passed on, no answer is ``VerifierError/applyPending(reason:)``
    /// (the facts stay pending, and the background retry applies them).
    private func apply(
        _ recorded: [StoreTransaction], renewals: [SubscriptionRenewalFacts], appID: String, requestID: String?
    ) async throws {
        guard !recorded.isEmpty || !renewals.isEmpty else { return }
        do {
            _ = try await projections.apply(
                ApplyRequest(appUserID: nil, deviceID: nil, source: .reconciliation, transactions: recorded),
                renewals: renewals, appID: appID, requestID: requestID)
        } catch let verdict as RemoteProblem {
            throw verdict
        } catch {
            logger.warning(
                "store news recorded but not applied yet; the background retry will",
                metadata: ["app_id": "\(appID)", "error": "\(error)"])
            throw VerifierError.applyPending(reason: "the subscriptions or entitlements service did not answer")
        }
        await transactions.markApplied(recorded, appID: appID, for: nil)
    }
}
