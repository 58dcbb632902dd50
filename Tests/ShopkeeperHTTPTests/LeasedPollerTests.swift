import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperTestSupport
import Testing

/// ``LeasedPoller`` against the real PostgreSQL: a table of its own per test, claimed with `FOR UPDATE SKIP LOCKED`
/// and a lease column, as the services' work is. Every wait is for a condition, never for a time.
@Suite struct LeasedPollerTests {
    @Test("Two pollers on one table process every item once")
    func twoPollersShareTheWork() async throws {
        try await QueueTable.with(items: 300) { client, table in
            let first = QueueWork(table: table, client: client, worker: "first", batchSize: 7)
            let second = QueueWork(table: table, client: client, worker: "second", batchSize: 7)
            try await running([poller(first, lanes: 2), poller(second, lanes: 2)]) {
                try await eventually("every item processed") { try await table.unprocessed() == 0 }
            }
            #expect(try await table.timesProcessed() == [1])
            #expect(try await table.workers().isSubset(of: ["first", "second"]))
        }
    }

    @Test("A process that fails is handed back, backed off and retried")
    func failuresBackOffAndRetry() async throws {
        try await QueueTable.with(items: 3) { client, table in
            let work = QueueWork(table: table, client: client, worker: "flaky", batchSize: 10, failuresFirst: 3)
            try await running([poller(work)]) {
                try await eventually("every item processed despite the failures") {
                    try await table.unprocessed() == 0
                }
            }
            #expect(work.failed == 3)
            #expect(work.released >= 3)
            #expect(try await table.timesProcessed() == [1])
        }
    }

    @Test("Graceful shutdown hands claimed work back, so another poller takes it at once")
    func shutdownHandsWorkBack() async throws {
        try await QueueTable.with(items: 5) { client, table in
            // A lease of an hour: only a hand-back lets the second poller take the items during the test.
            let stuck = QueueWork(table: table, client: client, worker: "stuck", batchSize: 5, blocks: true)
            let group = ServiceGroup(
                configuration: .init(services: [poller(stuck)], logger: Logger(label: "test")))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                try await eventually("the first item is being processed") { stuck.started > 0 }
                #expect(try await table.leased() == 5)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(try await table.leased() == 0)
            #expect(try await table.unprocessed() == 5)
            let taker = QueueWork(table: table, client: client, worker: "taker", batchSize: 5)
            try await running([poller(taker)]) {
                try await eventually("the handed-back items processed") { try await table.unprocessed() == 0 }
            }
            #expect(try await table.workers() == ["taker"])
        }
    }

    @Test("A wake-up cuts an idle pause short")
    func wakeUpStartsARound() async throws {
        try await QueueTable.with(items: 0) { client, table in
            let work = QueueWork(table: table, client: client, worker: "sleepy", batchSize: 10)
            let wakeUp = PollerWakeUp()
            // An interval of an hour: the items are processed within the test only if the wake-up works.
            let sleepy = LeasedPoller(
                name: "test_sleepy", work: work, interval: .seconds(3600), wakeUp: wakeUp, startup: nil,
                logger: Logger(label: "test"))
            try await running([sleepy]) {
                try await eventually("the first round claimed nothing") { work.claims > 0 }
                try await table.insert(4)
                wakeUp.wake()
                try await eventually("the woken poller processed the new items") { try await table.unprocessed() == 0 }
            }
        }
    }

    @Test("In slots, items are claimed as slots free, each processed once, and shutdown finishes those in process")
    func slotsFinishInFlightAtShutdown() async throws {
        try await QueueTable.with(items: 40) { client, table in
            let work = QueueWork(table: table, client: client, worker: "slots", batchSize: 40)
            let slots = LeasedPoller(
                name: "test_slots", work: work, interval: .milliseconds(20), slots: 4, shutdown: .finishInFlight,
                startup: nil, logger: Logger(label: "test"))
            try await running([slots]) {
                try await eventually("every item processed") { try await table.unprocessed() == 0 }
            }
            #expect(try await table.timesProcessed() == [1])
            #expect(work.largestClaim <= 4)

            // Items that block until released: the shutdown waits for the one in process instead of cancelling it.
            try await table.insert(1)
            let gate = QueueWork(table: table, client: client, worker: "gated", batchSize: 1, gated: true)
            let gated = LeasedPoller(
                name: "test_gated", work: gate, interval: .milliseconds(20), slots: 2, shutdown: .finishInFlight,
                startup: nil, logger: Logger(label: "test"))
            let group = ServiceGroup(configuration: .init(services: [gated], logger: Logger(label: "test")))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                try await eventually("the item is in process") { gate.started > 0 }
                await group.triggerGracefulShutdown()
                gate.openGate()
                try await tasks.waitForAll()
            }
            #expect(try await table.unprocessed() == 0)
            #expect(try await table.workers().contains("gated"))
        }
    }

    @Test("Backoff doubles from the first delay up to the limit, with jitter below each ceiling")
    func backoffGrows() {
        let backoff = PollerBackoff(first: .milliseconds(100), limit: .seconds(1))
        #expect(backoff.ceiling(afterFailures: 0) == .zero)
        #expect(backoff.ceiling(afterFailures: 1) == .milliseconds(100))
        #expect(backoff.ceiling(afterFailures: 3) == .milliseconds(400))
        #expect(backoff.ceiling(afterFailures: 5) == .seconds(1))
        #expect(backoff.ceiling(afterFailures: 500) == .seconds(1))
        for failures in 1...8 {
            let delay = backoff.delay(afterFailures: failures)
            #expect(delay >= backoff.ceiling(afterFailures: failures) / 2)
            #expect(delay <= backoff.ceiling(afterFailures: failures))
        }
    }

    /// A poller of `work` that pauses briefly, so that the tests' conditions come soon.
    private func poller(_ work: QueueWork, lanes: Int = 1) -> LeasedPoller<QueueWork> {
        LeasedPoller(
            name: "test_\(work.worker)", work: work, interval: .milliseconds(20),
            backoff: PollerBackoff(first: .milliseconds(10), limit: .milliseconds(50)), lanes: lanes, startup: nil,
            logger: Logger(label: "test"))
    }

    /// Runs `services` while `body` runs, then shuts them down gracefully.
    private func running(_ services: [any Service], _ body: () async throws -> Void) async throws {
        let group = ServiceGroup(configuration: .init(services: services, logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            do {
                try await body()
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}

/// A work queue of its own: `id`, a lease, who processed each item and how often.
struct QueueTable: Sendable {
    let name: String
    let client: PostgresClient

    static func create(_ client: PostgresClient, items: Int) async throws -> QueueTable {
        let table = QueueTable(name: "poller_test_" + RandomToken.base62(length: 10).lowercased(), client: client)
        try await client.query(
            """
            CREATE TABLE \(unescaped: table.name) (
                id bigserial PRIMARY KEY, leased_until timestamptz, processed_by text, times_processed int NOT NULL DEFAULT 0)
            """)
        try await table.insert(items)
        return table
    }

    /// Runs `body` with a pool on the test database and a queue of `items` of its own there, then drops the queue.
    static func with(items: Int, _ body: @Sendable (PostgresClient, QueueTable) async throws -> Void) async throws {
        try await TestDatabase.withClient { client in
            let table = try await create(client, items: items)
            try await body(client, table)
            try await table.drop()
        }
    }

    func insert(_ count: Int) async throws {
        try await client.query(
            "INSERT INTO \(unescaped: name) (leased_until) SELECT NULL FROM generate_series(1, \(count))")
    }

    func drop() async throws {
        try await client.query("DROP TABLE \(unescaped: name)")
    }

    func unprocessed() async throws -> Int {
        try await count("WHERE times_processed = 0")
    }

    func leased() async throws -> Int {
        try await count("WHERE leased_until > now()")
    }

    /// The distinct counts of times the items were processed.
    func timesProcessed() async throws -> Set<Int> {
        var seen: Set<Int> = []
        let rows = try await client.query("SELECT DISTINCT times_processed FROM \(unescaped: name)")
        for try await times in rows.decode(Int.self) { seen.insert(times) }
        return seen
    }

    func workers() async throws -> Set<String> {
        var seen: Set<String> = []
        let rows = try await client.query(
            "SELECT DISTINCT processed_by FROM \(unescaped: name) WHERE processed_by IS NOT NULL")
        for try await worker in rows.decode(String.self) { seen.insert(worker) }
        return seen
    }

    private func count(_ condition: String) async throws -> Int {
        let rows = try await client.query("SELECT count(*)::int FROM \(unescaped: name) \(unescaped: condition)")
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }
}

/// ``PolledWork`` on a ``QueueTable``: claims with `FOR UPDATE SKIP LOCKED` and an hour's lease, processes by counting.
final class QueueWork: PolledWork, Sendable {
    struct Failure: Error {}

    let table: QueueTable
    let client: PostgresClient
    let worker: String
    let batchSize: Int
    /// Processes that fail before the first that succeeds.
    let failuresFirst: Int
    /// Whether a process waits until it is cancelled (a store that never answers).
    let blocks: Bool
    /// Whether a process waits until ``openGate()`` (a slow attempt that must be finished, not cancelled).
    let gated: Bool
    private let counts = NIOLockedValueBox((claims: 0, started: 0, failed: 0, released: 0, largestClaim: 0))
    private let gate = NIOLockedValueBox((isOpen: false, waiters: [CheckedContinuation<Void, Never>]()))

    init(
        table: QueueTable, client: PostgresClient, worker: String, batchSize: Int, failuresFirst: Int = 0,
        blocks: Bool = false, gated: Bool = false
    ) {
        self.table = table
        self.client = client
        self.worker = worker
        self.batchSize = batchSize
        self.failuresFirst = failuresFirst
        self.blocks = blocks
        self.gated = gated
    }

    var claims: Int { counts.withLockedValue { $0.claims } }
    var started: Int { counts.withLockedValue { $0.started } }
    var failed: Int { counts.withLockedValue { $0.failed } }
    var released: Int { counts.withLockedValue { $0.released } }
    var largestClaim: Int { counts.withLockedValue { $0.largestClaim } }

    /// Lets gated processes go on.
    func openGate() {
        let waiters = gate.withLockedValue { gate in
            gate.isOpen = true
            defer { gate.waiters.removeAll() }
            return gate.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func claim(upTo limit: Int) async throws -> ClaimedBatch<Int64> {
        try await claim(limit: min(limit, batchSize))
    }

    func claim() async throws -> ClaimedBatch<Int64> {
        try await claim(limit: batchSize)
    }

    private func claim(limit: Int) async throws -> ClaimedBatch<Int64> {
        counts.withLockedValue { $0.claims += 1 }
        let rows = try await client.query(
            """
            UPDATE \(unescaped: table.name) SET leased_until = now() + interval '1 hour'
            WHERE id IN (
                SELECT id FROM \(unescaped: table.name)
                WHERE times_processed = 0 AND (leased_until IS NULL OR leased_until <= now())
                ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING id
            """)
        var ids: [Int64] = []
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        counts.withLockedValue { $0.largestClaim = max($0.largestClaim, ids.count) }
        return ClaimedBatch(ids.sorted(), limit: limit)
    }

    func process(_ id: Int64) async throws {
        let fails = counts.withLockedValue { counts in
            counts.started += 1
            guard counts.failed < failuresFirst else { return false }
            counts.failed += 1
            return true
        }
        if fails { throw Failure() }
        if blocks {
            // Never answers: waits until the shutdown cancels it (no test waits for this time).
            try await Task.sleep(for: .seconds(3600))
        }
        if gated {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isOpen = gate.withLockedValue { gate in
                    if !gate.isOpen { gate.waiters.append(continuation) }
                    return gate.isOpen
                }
                if isOpen { continuation.resume() }
            }
            // A shutdown that cancelled the process would show here: the item would be handed back unprocessed.
            try Task.checkCancellation()
        }
        try await client.query(
            """
            UPDATE \(unescaped: table.name)
            SET times_processed = times_processed + 1, processed_by = \(worker), leased_until = NULL
            WHERE id = \(id)
            """)
    }

    func release(_ ids: [Int64]) async throws {
        counts.withLockedValue { $0.released += ids.count }
        try await client.query("UPDATE \(unescaped: table.name) SET leased_until = NULL WHERE id = ANY(\(ids))")
    }
}
