import Logging
import ServiceLifecycle
import ShopkeeperHTTP

/// Moves subscriptions on when time passes and nothing was heard: a period ends into grace, billing retry or
/// expiry, a grace period ends, an app trial ends. A backstop for missed store notifications; every replica runs
/// one (a ``LeasedPoller``), and they skip each other's rows (`FOR UPDATE SKIP LOCKED`).
struct ExpirySweeper: PolledService {
    static let pollerName = "expiry_sweeper"
    let subscriptions: any SubscriptionRepository
    let trials: any TrialRepository
    let interval: Duration
    /// Opens once the schema is migrated.
    let startup: StartupGate
    let logger: Logger
    var batchSize = 200

    /// Sweeps one batch of each, in the sweep's own statements; full when either was.
    func claim() async throws -> ClaimedBatch<Never> {
        var moved = try await subscriptions.sweepDue(limit: batchSize)
        moved = max(moved, try await trials.sweepEnded(limit: batchSize))
        if moved > 0 { logger.debug("expiry sweep", metadata: ["moved": "\(moved)"]) }
        return .done(moved, limit: batchSize)
    }

    func process(_ item: Never) async {}
}
