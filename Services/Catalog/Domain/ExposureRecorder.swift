import NIOConcurrencyHelpers

/// A customer's first exposure to an experiment, to record: the customer's canonical id, the variant it was served
/// and the id it asked with.
struct Exposure: Sendable, Hashable {
    var appID: String
    var experimentID: String
    var customerKey: String
    var variant: String
    var appUserID: String
}

/// Records each customer's first exposure to an experiment once (``ExperimentPostgresRepository/recordExposures(_:)``,
/// `ON CONFLICT DO NOTHING`) before the answer that exposed it leaves, and remembers the exposures this replica
/// recorded so a customer's later answers cost no write.
///
/// Answers that expose customers at once share a write (a group commit): while one statement is under way, the
/// exposures that arrive wait for the next, which takes them all (up to ``batchLimit``), so a burst of new customers
/// (an experiment just started, every launch a first exposure) costs one statement per round trip rather than one
/// per answer. Each answer still waits until its exposure is written, and learns of a failed write.
/// The memory is only a shortcut: forgetting (when full, or on restart) costs one more insert that changes nothing.
final class ExposureRecorder: Sendable {
    private struct Key: Hashable {
        var appID: String
        var experimentID: String
        var customerKey: String

        init(_ exposure: Exposure) {
            (appID, experimentID, customerKey) = (exposure.appID, exposure.experimentID, exposure.customerKey)
        }
    }

    private struct Waiting {
        var exposure: Exposure
        var written: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var recorded: Set<Key> = []
        var waiting: [Waiting] = []
        /// Whether a task is writing batches; it takes every waiting exposure until none is left.
        var writing = false
    }

    /// Most exposures one statement writes.
    static let batchLimit = 500

    private let repository: ExperimentPostgresRepository
    private let state = NIOLockedValueBox(State())
    private let capacity: Int

    init(repository: ExperimentPostgresRepository, capacity: Int = 200_000) {
        self.repository = repository
        self.capacity = capacity
    }

    /// Returns once `exposure` is recorded (now or before); throws when it could not be written.
    func record(_ exposure: Exposure) async throws {
        if state.withLockedValue({ $0.recorded.contains(Key(exposure)) }) { return }
        try await withCheckedThrowingContinuation { (written: CheckedContinuation<Void, any Error>) in
            let startWriter = state.withLockedValue { state in
                state.waiting.append(Waiting(exposure: exposure, written: written))
                let idle = !state.writing
                state.writing = true
                return idle
            }
            if startWriter { Task { await self.writeWaiting() } }
        }
    }

    /// Writes the waiting exposures, a batch at a time, until none is left.
    private func writeWaiting() async {
        while true {
            let batch = state.withLockedValue { state in
                let taken = Array(state.waiting.prefix(Self.batchLimit))
                state.waiting.removeFirst(taken.count)
                if taken.isEmpty { state.writing = false }
                return taken
            }
            if batch.isEmpty { return }
            var seen: Set<Key> = []
            let distinct = batch.map(\.exposure).filter { seen.insert(Key($0)).inserted }
            do {
                try await repository.recordExposures(distinct)
                state.withLockedValue { state in
                    if state.recorded.count + seen.count > capacity { state.recorded.removeAll(keepingCapacity: true) }
                    state.recorded.formUnion(seen)
                }
                for waiting in batch { waiting.written.resume() }
            } catch {
                for waiting in batch { waiting.written.resume(throwing: error) }
            }
        }
    }
}
