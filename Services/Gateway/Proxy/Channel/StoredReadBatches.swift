import Foundation
import Logging
import NIOCore
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperStoredCustomerInfo

/// One event loop's stored customer reads (``StoredCustomerReads``), run on the gateway's one database client (its
/// `PostgresClient`, the pool that also serves keys, sessions and the audit log), at most ``statements`` at a time.
///
/// Every method must be called on ``eventLoop``. Reads that arrive while this loop's statements are all running wait
/// here and go together, up to ``batchLimit``, in the next statement (``StoredCustomerInfoRead/Batch``): under load
/// one round trip answers many launches, and an idle gateway adds no wait at all. Until the pool has lent this loop a
/// connection once (at start), and for a second after a read lost its connection, could not get one or took longer
/// than ``patience``, ``read(appID:appUserID:resolution:)`` returns `nil` and the request goes to the entitlements
/// service, which answers everything this path answers. A failed statement fails its reads (they go to the service).
final class StoredReadBatches {
    /// The most reads one statement answers.
    static let batchLimit = 32
    /// How long a statement may take, its connection's lease included, before its reads go to the service (the pool
    /// waits for a connection while the database is unreachable; a launch should not).
    static let patience = TimeAmount.seconds(1)

    let eventLoop: any EventLoop
    /// The most statements this loop runs at once.
    let statements: Int
    private let client: PostgresClient
    private let reader: LoopReader
    private let logger: Logger
    private var running = 0
    private var state = State.untried
    private var waiting = CircularBuffer<Waiting>()

    private enum State {
        /// No connection asked for yet.
        case untried
        /// A connection being leased, to know the database answers.
        case probing
        case ready
        /// Reads go to the service until this time, then a connection is leased again.
        case failed(retryAfter: NIODeadline)
        case closed
    }

    /// A read waiting for a statement.
    private struct Waiting {
        var appID: String
        var appUserID: String
        var resolution: TimeInterval
        var promise: EventLoopPromise<StoredCustomerInfoRead.Found?>
    }

    init(eventLoop: any EventLoop, client: PostgresClient, statements: Int, logger: Logger) {
        self.eventLoop = eventLoop
        self.client = client
        self.statements = statements
        self.reader = LoopReader(eventLoop: eventLoop, client: client, logger: logger)
        self.logger = logger
    }

    /// The stored info of the customer `appUserID` names (`nil` inside: no customer has the id), or `nil` when the
    /// database is not known to answer (a connection is being leased).
    func read(appID: String, appUserID: String, resolution: TimeInterval)
        -> EventLoopFuture<StoredCustomerInfoRead.Found?>?
    {
        eventLoop.preconditionInEventLoop()
        guard case .ready = state else {
            probeIfDue()
            return nil
        }
        let promise = eventLoop.makePromise(of: StoredCustomerInfoRead.Found?.self)
        waiting.append(Waiting(appID: appID, appUserID: appUserID, resolution: resolution, promise: promise))
        dispatch()
        return promise.futureResult
    }

    /// Takes no more reads (at shutdown, after the server has drained; the client closes its connections later).
    func close() {
        eventLoop.preconditionInEventLoop()
        state = .closed
        while let read = waiting.popFirst() { read.promise.fail(StoredReadsClosed()) }
    }

    /// Leases a connection when none was tried, or when the last failure is a second old: reads are taken up once it
    /// came.
    private func probeIfDue() {
        switch state {
        case .untried: break
        case .failed(let retryAfter) where retryAfter <= .now(): break
        case .probing, .ready, .failed, .closed: return
        }
        state = .probing
        let done = eventLoop.makePromise(of: Void.self)
        let reader = self.reader
        Task.immediate {
            do {
                try await reader.probe()
                done.succeed()
            } catch {
                done.fail(error)
            }
        }
        done.futureResult.assumeIsolated().whenComplete { [self] result in
            guard case .probing = state else { return }
            switch result {
            case .success: state = .ready
            case .failure(let error): backOff(error)
            }
        }
    }

    /// Sends the waiting reads, a batch per statement this loop may still run.
    private func dispatch() {
        while running < statements, !waiting.isEmpty, case .ready = state {
            var batch: [Waiting] = []
            batch.reserveCapacity(min(waiting.count, Self.batchLimit))
            // One resolution per statement (it is the same for every read of a gateway).
            let resolution = waiting.first?.resolution ?? 0
            while batch.count < Self.batchLimit, let next = waiting.first, next.resolution == resolution {
                batch.append(next)
                waiting.removeFirst()
            }
            run(batch, resolution: resolution)
        }
    }

    private func run(_ batch: [Waiting], resolution: TimeInterval) {
        running += 1
        let done = eventLoop.makePromise(of: [StoredCustomerInfoRead.Found?].self)
        let reader = self.reader
        let keys = batch.map { (appID: $0.appID, appUserID: $0.appUserID) }
        // Started on this thread, and isolated to this loop (``LoopReader``): only the database exchange itself
        // leaves it, on the connection's loop.
        Task.immediate {
            do {
                done.succeed(try await reader.read(keys, resolution: resolution))
            } catch {
                done.fail(error)
            }
        }
        // Whichever comes first answers the batch: the statement, or its patience running out.
        var answered = false
        let timeout = eventLoop.assumeIsolated().scheduleTask(in: Self.patience) { [self] in
            answered = true
            for read in batch { read.promise.fail(StoredReadTimedOut()) }
            backOff(StoredReadTimedOut())
        }
        done.futureResult.assumeIsolated().whenComplete { [self] result in
            running -= 1
            timeout.cancel()
            if !answered {
                switch result {
                case .success(let found):
                    for (read, found) in zip(batch, found) { read.promise.succeed(found) }
                case .failure(let error):
                    for read in batch { read.promise.fail(error) }
                    // A statement's own error (PostgreSQL answered) leaves the database usable; anything else (no
                    // connection, a lost one) does not.
                    if (error as? PSQLError)?.code != .server { backOff(error) }
                }
            }
            dispatch()
        }
    }

    /// Sends reads to the service for a second; the waiting ones go there now.
    private func backOff(_ error: any Error) {
        if case .closed = state { return }
        let wasReady = if case .ready = state { true } else { false }
        state = .failed(retryAfter: .now() + .seconds(1))
        while let read = waiting.popFirst() { read.promise.fail(error) }
        if wasReady || !(error is StoredReadTimedOut) {
            logger.warning(
                "stored customer reads: the database does not answer; the entitlements service answers",
                metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}

/// The gateway stopped while a read waited for a statement.
struct StoredReadsClosed: Error {}

/// A statement took longer than ``StoredReadBatches/patience``.
struct StoredReadTimedOut: Error {}

/// Runs reads on the event loop's own executor: PostgresNIO's async API (named prepared statements, prepared once
/// per connection) without a hop to another thread before and after the database exchange.
private actor LoopReader {
    nonisolated let unownedExecutor: UnownedSerialExecutor
    let client: PostgresClient
    let logger: Logger

    init(eventLoop: any EventLoop, client: PostgresClient, logger: Logger) {
        self.unownedExecutor = eventLoop.executor.asUnownedSerialExecutor()
        self.client = client
        self.logger = logger
    }

    /// Leases a connection and gives it back: the database answers.
    func probe() async throws {
        try await client.withConnection { _ in }
    }

    /// One read alone, as the entitlements service reads it; several in one statement.
    func read(_ keys: [(appID: String, appUserID: String)], resolution: TimeInterval) async throws
        -> [StoredCustomerInfoRead.Found?]
    {
        try await client.withConnection { connection in
            if keys.count == 1, let key = keys.first {
                return [
                    try await StoredCustomerInfoRead.find(
                        appID: key.appID, appUserID: key.appUserID, resolution: resolution, on: connection,
                        logger: logger)
                ]
            }
            return try await StoredCustomerInfoRead.Batch.read(
                keys, resolution: resolution, on: connection, logger: logger)
        }
    }
}
