/// How long a ``LeasedPoller`` waits after consecutive failed rounds: ``first`` after one failure, doubling with each
/// further one up to ``limit``, each delay drawn between half and all of that ("equal jitter"), so that replicas that
/// failed together (the database restarted) do not come back together.
package struct PollerBackoff: Sendable, Hashable {
    /// The delay after the first failure.
    package var first: Duration
    /// The longest delay.
    package var limit: Duration

    package init(first: Duration, limit: Duration) {
        self.first = first
        self.limit = max(first, limit)
    }

    /// The longest delay after `failures` consecutive failures (before the jitter).
    package func ceiling(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        var delay = first
        for _ in 1..<min(failures, 32) {
            delay *= 2
            if delay >= limit { return limit }
        }
        return min(delay, limit)
    }

    /// The delay after `failures` consecutive failures: between half and all of ``ceiling(afterFailures:)``.
    package func delay(afterFailures failures: Int) -> Duration {
        let ceiling = ceiling(afterFailures: failures)
        return ceiling / 2 + ceiling / 2 * Double.random(in: 0...1)
    }
}
