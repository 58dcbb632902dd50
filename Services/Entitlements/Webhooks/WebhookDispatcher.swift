import Foundation
import Logging
import Metrics
import ServiceLifecycle
import ShopkeeperCore
import ShopkeeperHTTP

/// Delivers the outbox's events to the apps' webhooks, at least once each, until graceful shutdown.
///
/// Every replica runs one; they share the work through ``WebhookDeliveryQueue/claim(limit:lease:)``. A batch is
/// sent concurrently; the next is claimed at once when the batch was full, after ``WebhookSettings/pollInterval``
/// otherwise. At graceful shutdown the batch in flight is finished (each attempt has a timeout) and no new one is
/// claimed; an attempt cut short by a crash is claimed again once its lease ends.
struct WebhookDispatcher: Service {
    let queue: any WebhookDeliveryQueue
    let sender: WebhookSender
    let settings: WebhookSettings
    /// Whether loopback and private hosts may be delivered to (checked again at delivery: the setting may change).
    let urlPolicy: WebhookURLPolicy
    /// Opens once the schema is migrated; nothing is claimed before.
    let startup: StartupGate
    let logger: Logger
    var batchSize = 16
    var metrics = WebhookMetrics()

    /// How long a claim keeps a delivery from other dispatchers: longer than any attempt takes.
    var lease: Duration { settings.timeout + .seconds(60) }

    func run() async throws {
        guard await waitUntilReady() else { return }
        logger.info("webhook dispatcher started", metadata: ["poll_ms": "\(settings.pollInterval.milliseconds)"])
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            let claimed = await runOnce()
            if claimed < batchSize { await pause(settings.pollInterval) }
        }
        logger.info("webhook dispatcher stopped")
    }

    /// Claims one batch and makes its attempts; returns how many were claimed.
    @discardableResult
    func runOnce() async -> Int {
        let claimed: [ClaimedDelivery]
        do {
            claimed = try await queue.claim(limit: batchSize, lease: lease)
        } catch {
            logger.error("could not claim webhook deliveries", metadata: ["error": "\(String(reflecting: error))"])
            return 0
        }
        await withTaskGroup(of: Void.self) { group in
            for delivery in claimed {
                group.addTask { await attempt(delivery) }
            }
        }
        return claimed.count
    }

    /// Makes one attempt and records how it went.
    func attempt(_ delivery: ClaimedDelivery) async {
        var metadata: Logger.Metadata = [
            "event_id": "\(delivery.eventID.uuidString.lowercased())", "app_id": "\(delivery.appID)",
            "attempt": "\(delivery.attempt)",
        ]
        guard let url = delivery.webhookURL, let secret = delivery.webhookSecret else {
            await recordFailure(delivery, status: nil, error: "no webhook configured", giveUp: true, metadata: metadata)
            return
        }
        if let problem = urlPolicy.problem(with: url) {
            await recordFailure(
                delivery, status: nil, error: "webhook_url refused: \(problem)", giveUp: false, metadata: metadata)
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
        case .failed(let status, let error):
            await recordFailure(delivery, status: status, error: error, giveUp: false, metadata: metadata)
        }
    }

    private func recordFailure(
        _ delivery: ClaimedDelivery, status: Int?, error: String, giveUp: Bool, metadata: Logger.Metadata
    ) async {
        var metadata = metadata
        metadata["status"] = status.map { "\($0)" } ?? "none"
        metadata["reason"] = "\(error)"
        let delay = WebhookBackoff.delay(afterAttempt: delivery.attempt, base: settings.retryBase)
        do {
            guard
                let state = try await queue.markFailed(
                    delivery, status: status, error: error, retryAfter: delay, giveUpAfter: settings.giveUpAfter,
                    giveUp: giveUp)
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

    /// Waits until the schema is migrated; `false` when the service is stopped first.
    private func waitUntilReady() async -> Bool {
        await cancelWhenGracefulShutdown { await startup.wait() }
        return !Task.isShuttingDownGracefully && !Task.isCancelled
    }

    /// Sleeps, cut short by graceful shutdown or cancellation.
    private func pause(_ duration: Duration) async {
        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: duration) }
    }
}
