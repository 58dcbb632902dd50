import NIOConcurrencyHelpers

/// Opens once the service's migrations are applied; background workers wait for it before their first query, so
/// they never run against a schema that is not there yet.
package final class StartupGate: Sendable {
    private let isOpen = NIOLockedValueBox(false)

    package init() {}

    /// Lets waiting work start.
    package func open() {
        isOpen.withLockedValue { $0 = true }
    }

    /// Returns once the gate is open, or when the task is cancelled (shutdown before start-up finished).
    package func wait(polling interval: Duration = .milliseconds(50)) async {
        while !isOpen.withLockedValue({ $0 }), !Task.isCancelled {
            try? await Task.sleep(for: interval)
        }
    }
}
