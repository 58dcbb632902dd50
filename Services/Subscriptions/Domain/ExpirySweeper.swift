import Logging
import ServiceLifecycle
import ShopkeeperHTTP

/// Moves subscriptions on when time passes and nothing was heard: a period ends into grace, billing retry or
/// expiry, a grace period ends, an app trial ends. A backstop for missed store notifications; every replica runs
/// one, and they skip each other's rows (`FOR UPDATE SKIP LOCKED`).
struct ExpirySweeper: Service {
    let subscriptions: any SubscriptionRepository
    let trials: any TrialRepository
    let interval: Duration
    /// Opens once the schema is migrated.
    let startup: StartupGate
    let logger: Logger
    var batchSize = 200

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await startup.wait()
            while !Task.isCancelled {
                let moved = await runOnce()
                if moved < batchSize {
                    try? await Task.sleep(for: interval)
                }
            }
        }
    }

    /// Sweeps one batch of each; returns the larger count.
    @discardableResult
    func runOnce() async -> Int {
        var moved = 0
        do {
            moved = try await subscriptions.sweepDue(limit: batchSize)
            moved = max(moved, try await trials.sweepEnded(limit: batchSize))
            if moved > 0 { logger.debug("expiry sweep", metadata: ["moved": "\(moved)"]) }
        } catch  where !Task.isCancelled {
            logger.error("expiry sweep failed", metadata: ["error": "\(String(reflecting: error))"])
        } catch {
            // Shutting down.
        }
        return moved
    }
}
