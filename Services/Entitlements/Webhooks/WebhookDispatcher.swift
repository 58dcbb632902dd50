import Foundation
import Logging
import Metrics
import ServiceLifecycle
import ShopkeeperCore
import ShopkeeperHTTP

/// Delivers the outbox's events to the apps' webhook endpoints, at least once each per endpoint, until graceful
/// shutdown.
///
/// Every replica runs one (a ``LeasedPoller`` in slots); they share the work through
/// ``WebhookDeliveryQueue/claim(limit:perApp:lease:)``. A dispatcher keeps up to ``WebhookSettings/concurrency``
/// attempts in flight and claims more as each one ends (and every ``WebhookSettings/pollInterval`` while it has room),
/// never waiting for a batch: an attempt that takes the whole timeout holds one slot, not the others. The claim takes
/// no more of an app's deliveries than keep ``WebhookSettings/perAppConcurrency`` of its attempts in flight across
/// every replica, so an app whose receiver hangs or fails cannot take the slots other apps' deliveries need.
///
/// At graceful shutdown nothing more is claimed and the attempts in flight are finished (each has a timeout); an
/// attempt cut short by a crash is claimed again once its lease ends.
struct WebhookDispatcher: Service, PolledWork {
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

    func run() async throws {
        try await LeasedPoller(
            name: "webhook_dispatcher", work: self, interval: settings.pollInterval, slots: settings.concurrency,
            shutdown: .finishInFlight, startup: startup, logger: logger
        ).run()
        logger.info("webhook dispatcher stopped")
    }

    /// Seals the secrets an earlier release stored in plaintext, before the first claim (claims read sealed secrets
    /// only); the poller tries again, backing off, until it succeeds.
    func prepare() async throws {
        let sealed = try await queue.sealUnsealedSecrets(with: secrets)
        if sealed > 0 { logger.notice("sealed plaintext webhook secrets", metadata: ["count": "\(sealed)"]) }
        logger.info(
            "webhook dispatcher started",
            metadata: [
                "poll_ms": "\(settings.pollInterval.milliseconds)", "concurrency": "\(settings.concurrency)",
                "per_app": "\(settings.perAppConcurrency)",
            ])
    }

    func claim() async throws -> ClaimedBatch<ClaimedDelivery> {
        try await claim(upTo: settings.concurrency)
    }

    /// Claims up to `limit` deliveries (the free slots), within each app's share.
    func claim(upTo limit: Int) async throws -> ClaimedBatch<ClaimedDelivery> {
        ClaimedBatch(
            try await queue.claim(limit: limit, perApp: settings.perAppConcurrency, lease: lease), limit: limit)
    }

    func process(_ delivery: ClaimedDelivery) async {
        await attempt(delivery)
    }

    /// Makes one attempt and records how it went.
    func attempt(_ delivery: ClaimedDelivery) async {
        var metadata: Logger.Metadata = [
            "event_id": "\(delivery.eventID.uuidString.lowercased())", "app_id": "\(delivery.appID)",
            "delivery_id": "\(delivery.deliveryID.uuidString.lowercased())", "attempt": "\(delivery.attempt)",
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
            logger.error(
                "the endpoint's webhook secret does not open; is SHOPKEEPER_MASTER_KEY right?", metadata: metadata)
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
}
