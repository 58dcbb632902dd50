import NIOConcurrencyHelpers

/// Wakes a ``LeasedPoller`` before its interval is over, when its owner knows work has come (a `NOTIFY`, a request
/// that queued work). A wake-up that comes while the poller is busy is not lost: its next pause is skipped. Pauses
/// after failures are not cut short (a wake-up is no sign the failure has passed).
package final class PollerWakeUp: Sendable {
    private struct State {
        /// Counts wake-ups; a pause that began before the latest one ends at once.
        var generation = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Wakes every pausing lane of the poller, or skips the next pause of those that are busy.
    package func wake() {
        let waiters = state.withLockedValue { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The wake-ups so far; pass it to ``wait(after:)``.
    var generation: Int {
        state.withLockedValue { $0.generation }
    }

    /// Returns once a wake-up came after `generation` was read, or the task is cancelled.
    func wait(after generation: Int) async {
        let id = state.withLockedValue { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLockedValue { state in
                    guard state.generation == generation, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
