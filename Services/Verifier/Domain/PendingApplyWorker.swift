import Logging
import ServiceLifecycle
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

/// Applies recorded facts whose apply did not finish (the entitlements service was down, the verifier stopped
/// between recording and applying), so that a purchase the store charged for is granted even when the app never
/// retries. Several replicas share the work through a ``LeasedPoller``: each claim leases its facts
/// (`FOR UPDATE SKIP LOCKED`).
struct PendingApplyWorker: PolledService {
    static let pollerName = "pending_apply"
    let transactions: any TransactionRepository
    let projections: FactProjections
    /// How often to look, and the first backoff of a fact whose apply failed again.
    let interval: Duration
    /// Opens once the schema is migrated.
    let startup: StartupGate
    let logger: Logger
    var batchSize = 100
    /// Consumes the Play consumables a background apply granted, for apps that ask for it.
    var consumer: GoogleConsumer? = nil

    /// One presenter's claimed facts: applied in one call, so each customer's facts commit together.
    struct PresenterFacts: Sendable {
        fileprivate var key: PresenterKey
        var facts: [PendingFact]
    }

    /// Marks the facts entitlements applied meanwhile, then claims one batch, grouped by presenter.
    func claim() async throws -> ClaimedBatch<PresenterFacts> {
        _ = try await transactions.sweepApplied()
        let claimed = try await transactions.claimPending(limit: batchSize, base: interval)
        let groups = Dictionary(grouping: claimed) { fact in
            PresenterKey(
                appID: fact.appID, appUserID: fact.asPresenter ? fact.appUserID : nil,
                deviceID: fact.asPresenter ? fact.deviceID : nil)
        }
        return ClaimedBatch(
            groups.map { PresenterFacts(key: $0.key, facts: $0.value) }, count: claimed.count, limit: batchSize)
    }

    /// Applies one presenter's facts; a failure leaves them pending, due again after their backoff.
    func process(_ group: PresenterFacts) async {
        let key = group.key
        let recorded = group.facts.map(\.transaction)
        let request = ApplyRequest(
            appUserID: key.appUserID, deviceID: key.deviceID, source: .retry, transactions: recorded)
        do {
            _ = try await projections.apply(request, appID: key.appID, requestID: nil)
            await transactions.markApplied(recorded, appID: key.appID, for: key.appUserID)
            await consumer?.consumeNow(recorded, appID: key.appID)
            logger.info(
                "applied pending facts", metadata: ["app_id": "\(key.appID)", "count": "\(recorded.count)"])
        } catch let verdict as RemoteProblem {
            await transactions.markRefused(recorded, appID: key.appID, for: key.appUserID, code: verdict.code)
            logger.notice(
                "pending facts refused by entitlements",
                metadata: ["app_id": "\(key.appID)", "code": "\(verdict.code)"])
        } catch {
            logger.warning(
                "pending facts not applied yet; retrying later",
                metadata: ["app_id": "\(key.appID)", "error": "\(error)"])
        }
    }

    func release(_ groups: [PresenterFacts]) async throws {
        try await transactions.releasePending(groups.flatMap(\.facts))
    }

    fileprivate struct PresenterKey: Hashable, Sendable {
        var appID: String
        var appUserID: String?
        var deviceID: String?
    }
}
