import Foundation
import Metrics

/// A ``LeasedPoller``'s metrics, each with the dimension `poller` (its name):
///
/// - `shopkeeper_poller_runs_total{poller, outcome}`: rounds, `outcome` `idle` (nothing claimed), `busy` (work
///   claimed) or `failed` (a claim, a process or the preparation threw).
/// - `shopkeeper_poller_items_total{poller}`: rows claimed (or handled by the claim's own statement).
/// - `shopkeeper_poller_errors_total{poller, stage}`: errors by `stage`: `prepare`, `claim`, `process`, `release`.
/// - `shopkeeper_poller_run_duration_seconds{poller}`: how long each round with work took.
/// - `shopkeeper_poller_last_success_timestamp_seconds{poller}`: when a round last ended without an error; its lag is
///   `time() - ` this (about the poller's interval when healthy, growing while it fails or hangs).
package struct PollerMetrics: Sendable {
    package static let runs = "shopkeeper_poller_runs_total"
    package static let items = "shopkeeper_poller_items_total"
    package static let errors = "shopkeeper_poller_errors_total"
    package static let duration = "shopkeeper_poller_run_duration_seconds"
    package static let lastSuccess = "shopkeeper_poller_last_success_timestamp_seconds"

    /// Where an error happened.
    package enum Stage: String, Sendable, CaseIterable {
        case prepare, claim, process, release
    }

    private let idle: Counter
    private let busy: Counter
    private let failed: Counter
    private let claimed: Counter
    private let errorCounters: [Stage: Counter]
    private let roundDuration: Metrics.Timer
    private let succeededAt: Gauge

    /// The instruments of the poller named `poller`.
    package init(poller: String) {
        idle = Counter(label: Self.runs, dimensions: [("poller", poller), ("outcome", "idle")])
        busy = Counter(label: Self.runs, dimensions: [("poller", poller), ("outcome", "busy")])
        failed = Counter(label: Self.runs, dimensions: [("poller", poller), ("outcome", "failed")])
        claimed = Counter(label: Self.items, dimensions: [("poller", poller)])
        var errorCounters: [Stage: Counter] = [:]
        for stage in Stage.allCases {
            errorCounters[stage] = Counter(
                label: Self.errors, dimensions: [("poller", poller), ("stage", stage.rawValue)])
        }
        self.errorCounters = errorCounters
        roundDuration = Metrics.Timer(label: Self.duration, dimensions: [("poller", poller)])
        succeededAt = Gauge(label: Self.lastSuccess, dimensions: [("poller", poller)])
    }

    /// Counts one error at `stage`.
    package func error(at stage: Stage) {
        errorCounters[stage]?.increment()
    }

    /// Records one round that claimed `count` rows and took `duration`, failed or not.
    package func round(claimed count: Int, failed: Bool, duration: Duration) {
        if failed {
            self.failed.increment()
        } else {
            succeededAt.record(Date().timeIntervalSince1970)
            (count > 0 ? busy : idle).increment()
        }
        if count > 0 {
            claimed.increment(by: Int64(count))
            roundDuration.recordNanoseconds(
                duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        }
    }
}
