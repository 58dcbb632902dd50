import Foundation

/// The notifications the sandbox sent (or held, or is still retrying), oldest first, as written to
/// `notifications.json` and `notifications.<generation>.log` by a ``StateJournal`` of its own: the log the
/// ``NotificationDispatcher`` delivers from and Get Notification History answers from. Like Apple's history it
/// survives the store's restarts; a crash loses no notification that was signed before it (each is logged before its
/// first attempt and before the operation that caused it answers).
struct NotificationSnapshot: JournaledState, Sendable, Equatable {
    static let formatVersion = 1
    var version = 1
    var logGeneration = 0
    /// Oldest first: the newest ``NotificationDispatcher/maximumLogSize`` within
    /// ``NotificationDispatcher/retention``.
    var deliveries = JournaledList<NotificationDelivery>()

    init() {}

    /// What changed since the last call, as one log line (`nil`: nothing), and forgets it.
    mutating func takeChange() -> NotificationChange? {
        deliveries.takeChange().map { NotificationChange(deliveries: $0) }
    }

    /// Applies one line of the log.
    mutating func apply(_ change: NotificationChange) throws(StateJournalError) {
        if let list = change.deliveries { try deliveries.apply(list) }
        // Applying marks nothing to write: what was read back is on disk already.
        _ = takeChange()
    }
}

/// One line of the notification log: deliveries added, changed (an attempt made) or dropped (the oldest).
struct NotificationChange: Codable, Sendable, Equatable {
    var deliveries: ListChange<NotificationDelivery>?
}

extension StateJournal where State == NotificationSnapshot {
    /// The journal of the notifications sent: `notifications.json` and `notifications.<generation>.log`.
    convenience init(notificationsIn directory: StateDirectory, fsyncEachChange: Bool, compactionFloor: Int = 8 << 20) {
        self.init(
            directory: directory, name: "notifications", fsyncEachChange: fsyncEachChange,
            compactionFloor: compactionFloor)
    }
}
