import Foundation
import Logging
import ServiceLifecycle
import ShopkeeperHTTP

/// The stores' own clock: every tick, subscriptions whose period (or grace period, billing retry, account hold) ended
/// move on as the store would move them, each with its notification. Periods are compressed by the time scale when
/// they are made; dates stay real. The ticks are a ``LeasedPoller``'s rounds (the store is in memory: nothing to lease).
struct SubscriptionClock: Service, PolledWork {
    let store: SandboxStore
    let dispatcher: NotificationDispatcher
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try await LeasedPoller(
            name: "sandbox_subscription_clock", work: self, interval: interval, startup: nil, logger: logger
        ).run()
    }

    /// One tick, done in the "claim".
    func claim() async throws -> ClaimedBatch<Never> {
        await tick()
        return .empty
    }

    func process(_ item: Never) async {}

    /// Moves on everything due at `now`.
    func tick(at now: Date = Date()) async {
        for chain in await store.appleSubscriptionsDue(at: now) {
            do {
                let events = try await store.tickApple(chain, at: now)
                await dispatcher.send(events.map(StoreEvent.apple))
            } catch {
                logger.warning(
                    "subscription not moved on",
                    metadata: ["original_transaction_id": "\(chain)", "error": "\(error)"])
            }
        }
        for token in await store.googleSubscriptionsDue(at: now) {
            do {
                let (_, events) = try await store.stepGoogle(token, at: now)
                await dispatcher.send(events.map(StoreEvent.google))
            } catch {
                logger.warning("subscription not moved on", metadata: ["error": "\(error)"])
            }
        }
        for id in await store.stripeSubscriptionsDue(at: now) {
            do {
                let (result, events) = try await store.stripeRun { store throws(StripeError) in
                    try store.stripeStep(id, at: now)
                }
                await dispatcher.send(events.map(StoreEvent.stripe))
                if case .failure(let error) = result {
                    logger.warning(
                        "subscription not moved on", metadata: ["subscription": "\(id)", "error": "\(error.message)"])
                }
            } catch {
                logger.warning("subscription not moved on", metadata: ["subscription": "\(id)", "error": "\(error)"])
            }
        }
    }
}
