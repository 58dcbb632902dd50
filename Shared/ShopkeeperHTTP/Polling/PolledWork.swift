/// The work a ``LeasedPoller`` runs: the work's own rules (its claim SQL, its lease, what a failure of one item means),
/// without any loop, sleep or backoff of its own.
///
/// A round claims a batch (``claim()``), then processes its items one at a time (``process(_:)``). Items claimed and
/// not processed (the service is stopping, or an item's processing threw) are handed back (``release(_:)``), so that
/// another replica takes them at once instead of waiting for their lease to run out.
package protocol PolledWork: Sendable {
    /// One unit of claimed work: a row, or a group of rows processed together (one app's notifications).
    associatedtype Item: Sendable

    /// Runs once before the first claim (creating a cursor row, sealing secrets); the poller retries it, backing off,
    /// until it succeeds. Default: nothing.
    func prepare() async throws

    /// Claims the work due now, leased to this replica by the work's own SQL (`FOR UPDATE SKIP LOCKED`, a lease
    /// column). Work that the claim's statement does itself (a sweep) is counted in the batch with no items.
    func claim() async throws -> ClaimedBatch<Item>

    /// Claims at most `limit` items: the free slots of a poller that processes items as slots free
    /// (``LeasedPoller/slots``). Default: ``claim()``.
    func claim(upTo limit: Int) async throws -> ClaimedBatch<Item>

    /// Processes one claimed item. Failures that belong to the item (retry it later, give up on it) are the work's
    /// to record; an error thrown here is counted, the item handed back and the poller backs off before its next
    /// claim.
    func process(_ item: Item) async throws

    /// Hands back claimed items that will not be processed: their lease cleared, so that they are due again at once.
    /// Default: nothing (the lease runs out).
    func release(_ items: [Item]) async throws
}

extension PolledWork {
    package func prepare() async throws {}

    package func claim(upTo limit: Int) async throws -> ClaimedBatch<Item> {
        try await claim()
    }

    package func release(_ items: [Item]) async throws {}
}

/// What one claim found.
package struct ClaimedBatch<Item: Sendable>: Sendable {
    /// The claimed work, processed in this order.
    package var items: [Item]
    /// How many rows the claim took (or the claim's own statement handled); counted in the poller's metrics.
    package var count: Int
    /// Whether more may be due right away: the poller claims again without pausing.
    package var isFull: Bool

    /// `items`, one row each, out of at most `limit`.
    package init(_ items: [Item], limit: Int) {
        self.init(items, count: items.count, limit: limit)
    }

    /// `items` made of `count` rows, out of at most `limit` (one item may group several rows).
    package init(_ items: [Item], count: Int, limit: Int) {
        self.items = items
        self.count = count
        self.isFull = count >= limit
    }

    /// Nothing claimed.
    package static var empty: ClaimedBatch { ClaimedBatch([], count: 0, limit: 1) }

    /// Work the claim's own statement did (`count` rows out of at most `limit`), with nothing left to process.
    package static func done(_ count: Int, limit: Int) -> ClaimedBatch {
        ClaimedBatch([], count: count, limit: limit)
    }
}
