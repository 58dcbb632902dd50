import Foundation
import Logging
import ServiceLifecycle

/// Renews subscriptions whose period ended, as the App Store does on its own, with `DID_RENEW` each: with a time
/// scale, a month passes in minutes. Off unless `SHOPKEEPER_SANDBOX_AUTO_RENEW` is set; subscriptions in billing
/// retry or with auto-renew off wait for `advance`.
struct RenewalTicker: Service {
    let store: SandboxStore
    let notifier: AppleNotifier
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await tick()
                try? await Task.sleep(for: interval)
            }
        }
    }

    func tick(at now: Date = Date()) async {
        for due in await store.subscriptionsDue(at: now) {
            do {
                let end = try await store.endPeriod(
                    subscription: due.transactionId, outcome: .renew, grace: nil, at: now)
                try await AppleNotifications.periodEnded(end, store: store, notifier: notifier)
            } catch {
                logger.warning(
                    "could not renew", metadata: ["transaction_id": "\(due.transactionId)", "error": "\(error)"])
            }
        }
    }
}
