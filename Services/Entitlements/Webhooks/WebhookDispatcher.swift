import Foundation
import Logging
import Metrics
import ServiceLifecycle
import ShopkeeperCore
import ShopkeeperHTTP

/// Delivers the outbox's events to the apps' webhooks, at least once each, until graceful shutdown.
///
/// Every replica runs one; they share the work through
/// ``WebhookDeliveryQueue/claim(limit:perApp:lease:)``. A dispatcher keeps up to ``WebhookSettings/concurrency``
/// attempts in flight and claims more as each one ends (and every ``WebhookSettings/pollInterval`` while it has room),
/// never waiting for a batch: an attempt that takes the whole timeout holds one slot, not the others. The claim takes
/// no more of an app's deliveries than keep ``WebhookSettings/perAppConcurrency`` of its attempts in flight across
/// every replica, so an app whose receiver hangs or fails cannot take the slots other apps' deliveries need.
///
/// At graceful shutdown nothing more is claimed and the attempts in flight are finished (each has a timeout); an
/// attempt cut short by a crash is claimed again once its lease ends.
struct WebhookDispatcher: Service {
    let queue: any WebhookDeliveryQueue
    let sender: WebhookSender
    /// Opens the apps' sealed signing secrets.
    let secrets: WebhookSecretBox
    let settings: WebhookSettings
    /// Opens once the schema is migrated; nothing is claimed before.
    let startup: StartupGate
    let logger: Logger
    var metrics = WebhookMetrics()

    /// How long a claim keeps a delivery from other dispatchers: longer than any attempt takes.
    var lease: Duration { settings.timeout + .seconds(60) }

    /// What wakes the dispatcher's loop.
    private enum Signal: Sendable {
        /// The poll interval passed.
        case tick
        /// An attempt ended: its slot is free.
        case finished
        /// Graceful shutdown began.
        case stop
    }

    func run() async throws {
        guard await waitUntilReady(), await sealUnsealedSecrets() else { return }
        logger.info(
            "webhook dispatcher started",
            metadata: [
                "poll_ms": "\(settings.pollInterval.milliseconds)", "concurrency": "\(settings.concurrency)",
                "per_app": "\(settings.perAppConcurrency)",
            ])
        let (signals, signal) = AsyncStream.makeStream(of: Signal.self)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while true {
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: settings.pollInterval) }
                    if Task.isShuttingDownGracefully || Task.isCancelled {
                        signal.yield(.stop)
                        return
                    }
                    signal.yield(.tick)
                }
            }
            var inFlight = 0
            var stopping = false
            var wantsClaim = true
            var next = signals.makeAsyncIterator()
            while !(stopping && inFlight == 0) {
                if wantsClaim, !stopping, inFlight < settings.concurrency {
                    for delivery in await claim(limit: settings.concurrency - inFlight) {
                        inFlight += 1
                        group.addTask {
                            await attempt(delivery)
                            signal.yield(.finished)
                        }
                    }
                }
                // Cancellation (not graceful shutdown) ends the stream; the group then cancels the attempts.
                guard let woken = await next.next() else { break }
                switch woken {
                case .tick: wantsClaim = true
                case .finished:
                    inFlight -= 1
                    wantsClaim = true
                case .stop: stopping = true
                }
            }
            signal.finish()
            group.cancelAll()
        }
        logger.info("webhook dispatcher stopped")
    }

    /// Claims up to `limit` deliveries; none when the claim fails (it is tried again at the next signal).
    private func claim(limit: Int) async -> [ClaimedDelivery] {
        do {
            return try await queue.claim(limit: limit, perApp: settings.perAppConcurrency, lease: lease)
        } catch {
            logger.error("could not claim webhook deliveries", metadata: ["error": "\(String(reflecting: error))"])
            return []
        }
    }

    /// Makes one attempt and records how it went.
    func attempt(_ delivery: ClaimedDelivery) async {
        var metadata: Logger.Metadata = [
            "event_id": "\(delivery.eventID.uuidString.lowercased())", "app_id": "\(delivery.appID)",
            "attempt": "\(delivery.attempt)",
        ]
        guard let url = delivery.webhookURL else {
            await recordFailure(delivery, .notConfigured, giveUp: true, metadata: metadata)
            return
        }
        let secret: String
        do throws(WebhookFailure) {
            guard let sealed = delivery.sealedSecret else { throw .secretUnavailable }
            secret = try secrets.open(sealed.sealed, appID: delivery.appID, keyID: sealed.keyID)
        } catch {
            logger.error("the app's webhook secret does not open; is SHOPKEEPER_MASTER_KEY right?", metadata: metadata)
            await recordFailure(delivery, error, giveUp: false, metadata: metadata)
            return
        }
        let start = ContinuousClock.now
        let result = await sender.send(delivery, url: url, secret: secret)
        metrics.duration.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
        switch result {
        case .delivered(let status):
            metadata["status"] = "\(status)"
            do {
                try await queue.markDelivered(delivery, status: status)
                metrics.delivered.increment()
                logger.debug("webhook delivered", metadata: metadata)
            } catch {
                // The lease runs out and the event is sent again: at least once, never lost.
                metadata["error"] = "\(String(reflecting: error))"
                logger.error("could not record a webhook delivery", metadata: metadata)
            }
        case .failed(let failure):
            await recordFailure(delivery, failure, giveUp: false, metadata: metadata)
        }
    }

    private func recordFailure(
        _ delivery: ClaimedDelivery, _ failure: WebhookFailure, giveUp: Bool, metadata: Logger.Metadata
    ) async {
        var metadata = metadata
        metadata["status"] = failure.status.map { "\($0)" } ?? "none"
        metadata["reason"] = "\(failure.reason)"
        let delay = WebhookBackoff.delay(afterAttempt: delivery.attempt, base: settings.retryBase)
        do {
            guard
                let state = try await queue.markFailed(
                    delivery, failure: failure, retryAfter: delay, giveUpAfter: settings.giveUpAfter, giveUp: giveUp)
            else { return }
            metrics.counter(for: state).increment()
            if state == .dead {
                logger.warning("webhook delivery given up", metadata: metadata)
            } else {
                metadata["retry_in_ms"] = "\(delay.milliseconds)"
                logger.notice("webhook delivery failed; retrying later", metadata: metadata)
            }
        } catch {
            metadata["error"] = "\(String(reflecting: error))"
            logger.error("could not record a failed webhook attempt", metadata: metadata)
        }
    }

    /// Seals the secrets an earlier release stored in plaintext, before the first claim (claims read sealed secrets
    /// only); tried again every poll interval until it succeeds. `false` when the service is stopped first.
    private func sealUnsealedSecrets() async -> Bool {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                let sealed = try await queue.sealUnsealedSecrets(with: secrets)
                if sealed > 0 { logger.notice("sealed plaintext webhook secrets", metadata: ["count": "\(sealed)"]) }
                return true
            } catch {
                logger.error(
                    "could not seal plaintext webhook secrets", metadata: ["error": "\(String(reflecting: error))"])
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: settings.pollInterval) }
            }
        }
        return false
    }

    /// Waits until the schema is migrated; `false` when the service is stopped first.
    private func waitUntilReady() async -> Bool {
        await cancelWhenGracefulShutdown { await startup.wait() }
        return !Task.isShuttingDownGracefully && !Task.isCancelled
    }
}
