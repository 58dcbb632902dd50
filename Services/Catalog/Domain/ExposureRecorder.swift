import NIOConcurrencyHelpers

/// Records each customer's first exposure to an experiment once (``ExperimentPostgresRepository/recordExposure``,
/// `ON CONFLICT DO NOTHING`), and remembers the exposures this replica recorded so a customer's later answers cost no
/// write. The memory is only a shortcut: forgetting (when full, or on restart) costs one more insert that changes
/// nothing.
final class ExposureRecorder: Sendable {
    private struct Key: Hashable {
        var appID: String
        var experimentID: String
        var customerKey: String
    }

    private let repository: ExperimentPostgresRepository
    private let recorded = NIOLockedValueBox(Set<Key>())
    private let capacity: Int

    init(repository: ExperimentPostgresRepository, capacity: Int = 200_000) {
        self.repository = repository
        self.capacity = capacity
    }

    func record(appID: String, experimentID: String, customerKey: String, variant: String, appUserID: String)
        async throws
    {
        let key = Key(appID: appID, experimentID: experimentID, customerKey: customerKey)
        if recorded.withLockedValue({ $0.contains(key) }) { return }
        try await repository.recordExposure(
            appID: appID, experimentID: experimentID, customerKey: customerKey, variant: variant, appUserID: appUserID)
        recorded.withLockedValue { set in
            if set.count >= capacity { set.removeAll(keepingCapacity: true) }
            set.insert(key)
        }
    }
}
