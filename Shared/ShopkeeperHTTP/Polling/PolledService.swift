import Logging
import ServiceLifecycle

/// Polled work that is itself a lifecycle service: its `run()` is one ``LeasedPoller`` over it with the poller's
/// defaults (one lane, a first round at once). Work that needs other settings (lanes, slots, a late first round)
/// writes its own `run()`.
package protocol PolledService: Service, PolledWork {
    /// The poller's name, in its log lines and metrics.
    static var pollerName: String { get }
    /// How often an idle poller looks.
    var interval: Duration { get }
    /// Opens once the schema is migrated: no claim before.
    var startup: StartupGate { get }
    /// The background work's own logger (no request is behind it).
    var logger: Logger { get }
}

extension PolledService {
    /// Polls until the service group stops.
    package func run() async throws {
        try await LeasedPoller(
            name: Self.pollerName, work: self, interval: interval, startup: startup, logger: logger
        ).run()
    }
}
