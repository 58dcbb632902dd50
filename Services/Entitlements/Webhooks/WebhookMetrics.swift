import Metrics
import PostgresNIO
import ShopkeeperHTTP

/// The webhook dispatcher's metrics, declared in one place.
///
/// `shopkeeper_webhook_deliveries_total{outcome}` counts finished attempts: `delivered` (a 2xx answer), `retry` (a
/// failure with another attempt scheduled) and `dead` (a failure after the retry window, or no webhook configured).
struct WebhookMetrics: Sendable {
    let delivered = Counter(label: "shopkeeper_webhook_deliveries_total", dimensions: [("outcome", "delivered")])
    let retry = Counter(label: "shopkeeper_webhook_deliveries_total", dimensions: [("outcome", "retry")])
    let dead = Counter(label: "shopkeeper_webhook_deliveries_total", dimensions: [("outcome", "dead")])
    /// How long each attempt took, answer or failure.
    let duration = Metrics.Timer(label: "shopkeeper_webhook_attempt_duration_seconds")

    /// The counter of a delivery's state after an attempt.
    func counter(for state: WebhookDeliveryState) -> Counter {
        switch state {
        case .delivered: delivered
        case .pending: retry
        case .dead: dead
        }
    }
}

extension WebhookMetrics {
    /// `shopkeeper_webhook_backlog`: deliveries not finished yet (due now, or waiting for their next attempt); and
    /// `shopkeeper_webhook_backlog_oldest_seconds`: how long the oldest of them has waited (0 with none). Read
    /// periodically (``DatabaseGaugeRefresher``), never on a request.
    static let backlogGauges = [
        DatabaseGauge(name: "shopkeeper_webhook_backlog") {
            "SELECT count(*)::float8 FROM entitlements.webhook_deliveries WHERE state = 'pending'"
        },
        DatabaseGauge(name: "shopkeeper_webhook_backlog_oldest_seconds") {
            """
            SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8
            FROM entitlements.webhook_deliveries WHERE state = 'pending'
            """
        },
    ]
}
