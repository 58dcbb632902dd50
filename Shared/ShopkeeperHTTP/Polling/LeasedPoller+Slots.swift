import Logging
import NIOConcurrencyHelpers
import ShopkeeperCore

extension LeasedPoller {
    /// What wakes the slot loop.
    private enum SlotSignal: Sendable {
        /// The pause passed, or a wake-up came.
        case tick
        /// An item's processing ended: its slot is free.
        case finished
        /// The service is stopping.
        case stop
    }

    /// Keeps up to `slots` items in process at once, each in a task of its own, and claims
    /// (``PolledWork/claim(upTo:)``) as many as there are free slots at start, as each item ends and after every
    /// pause: no item waits for the others of its batch. At graceful shutdown nothing more is claimed, and the items
    /// in process are finished (``Shutdown/finishInFlight``) or cancelled.
    func runSlots(_ slots: Int) async {
        let failures = NIOLockedValueBox(0)
        let (signals, signal) = AsyncStream.makeStream(of: SlotSignal.self)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while true {
                    let seen = wakeUp.generation
                    let failed = failures.withLockedValue { $0 }
                    if failed > 0 {
                        await pause(for: backoff.delay(afterFailures: failed), unlessWokenAfter: nil)
                    } else {
                        await pause(for: interval, unlessWokenAfter: seen)
                    }
                    if isStopping {
                        signal.yield(.stop)
                        return
                    }
                    signal.yield(.tick)
                }
            }
            var inFlight = 0
            var stopping = false
            var mayClaim = true
            var next = signals.makeAsyncIterator()
            while !(stopping && inFlight == 0) {
                if mayClaim, !stopping, inFlight < slots {
                    if let items = await claimSlots(slots - inFlight) {
                        failures.withLockedValue { $0 = 0 }
                        for item in items {
                            inFlight += 1
                            group.addTask {
                                if !(await processed(item)) { failures.withLockedValue { $0 += 1 } }
                                signal.yield(.finished)
                            }
                        }
                    } else {
                        failures.withLockedValue { $0 += 1 }
                        mayClaim = false
                    }
                }
                // Cancellation (not graceful shutdown) ends the stream; the group then cancels the items in process.
                guard let woken = await next.next() else { break }
                switch woken {
                case .tick: mayClaim = true
                case .finished:
                    inFlight -= 1
                    mayClaim = true
                case .stop: stopping = true
                }
            }
            signal.finish()
            group.cancelAll()
        }
    }

    /// Claims up to `limit` items; `nil` when the claim failed.
    private func claimSlots(_ limit: Int) async -> [Work.Item]? {
        let start = ContinuousClock.now
        do {
            let batch = try await uncancelled { [work] in try await work.claim(upTo: limit) }
            metrics.round(claimed: batch.count, failed: false, duration: ContinuousClock.now - start)
            return batch.items
        } catch {
            metrics.error(at: .claim)
            metrics.round(claimed: 0, failed: true, duration: ContinuousClock.now - start)
            logger.error("could not claim work", metadata: ["error": "\(String(reflecting: error))"])
            return nil
        }
    }
}
