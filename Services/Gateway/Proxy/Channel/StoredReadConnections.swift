import Foundation
import Logging
import NIOCore
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperStoredCustomerInfo

/// One event loop's database connections for the gateway's stored customer reads (``StoredCustomerReads``), made on
/// that loop, so that a read never leaves the client connection's thread.
///
/// Every method must be called on ``eventLoop``. A connection runs one statement at a time; reads that arrive while
/// every connection is busy wait here and go together, up to ``batchLimit``, in the next statement
/// (``StoredCustomerInfoRead/Batch``): under load one round trip answers many launches, and an idle gateway adds no
/// wait at all. A connection is made when a read first needs it and again, at most once a second, after it failed;
/// while none is ready ``read(appID:appUserID:resolution:)`` returns `nil` and the request goes to the entitlements
/// service, which answers everything this path answers. A failed statement fails its reads (they go to the service).
final class StoredReadConnections {
    /// The most reads one statement answers.
    static let batchLimit = 32

    let eventLoop: any EventLoop
    private let configuration: PostgresConnection.Configuration
    private let reader: LoopReader
    private let logger: Logger
    private var slots: [Slot]
    private var waiting = CircularBuffer<Waiting>()
    private var closed = false

    private struct Slot {
        var state = State.idle
        var busy = false

        enum State {
            case idle
            case connecting
            case ready(PostgresConnection)
            /// Failed: made again on a read after this time.
            case failed(retryAfter: NIODeadline)
        }
    }

    /// A read waiting for a connection.
    private struct Waiting {
        var appID: String
        var appUserID: String
        var resolution: TimeInterval
        var promise: EventLoopPromise<StoredCustomerInfoRead.Found?>
    }

    init(eventLoop: any EventLoop, configuration: PostgresConnection.Configuration, connections: Int, logger: Logger) {
        self.eventLoop = eventLoop
        self.configuration = configuration
        self.reader = LoopReader(eventLoop: eventLoop, logger: logger)
        self.logger = logger
        self.slots = Array(repeating: Slot(), count: connections)
    }

    /// The stored info of the customer `appUserID` names (`nil` inside: no customer has the id), or `nil` when no
    /// connection is ready (one is being made).
    func read(appID: String, appUserID: String, resolution: TimeInterval)
        -> EventLoopFuture<StoredCustomerInfoRead.Found?>?
    {
        eventLoop.preconditionInEventLoop()
        guard !closed, anyReady() else { return nil }
        let promise = eventLoop.makePromise(of: StoredCustomerInfoRead.Found?.self)
        waiting.append(Waiting(appID: appID, appUserID: appUserID, resolution: resolution, promise: promise))
        dispatch()
        return promise.futureResult
    }

    /// Closes every connection and makes no more (at shutdown, after the server has drained).
    func close() {
        eventLoop.preconditionInEventLoop()
        closed = true
        for index in slots.indices {
            if case .ready(let connection) = slots[index].state { connection.close().whenComplete { _ in } }
            slots[index].state = .idle
        }
        while let read = waiting.popFirst() { read.promise.fail(StoredReadsClosed()) }
    }

    /// Whether a connection is ready (busy or not); starts making one wherever one is due.
    private func anyReady() -> Bool {
        var ready = false
        let now = NIODeadline.now()
        for index in slots.indices {
            switch slots[index].state {
            case .ready(let connection):
                if connection.isClosed, !slots[index].busy {
                    connect(index)
                } else if !connection.isClosed {
                    ready = true
                }
            case .idle:
                connect(index)
            case .failed(let retryAfter) where retryAfter <= now:
                connect(index)
            case .connecting, .failed:
                continue
            }
        }
        return ready
    }

    /// Sends the waiting reads, a batch per idle ready connection.
    private func dispatch() {
        for index in slots.indices where !waiting.isEmpty && !slots[index].busy {
            guard case .ready(let connection) = slots[index].state, !connection.isClosed else { continue }
            var batch: [Waiting] = []
            batch.reserveCapacity(min(waiting.count, Self.batchLimit))
            // One resolution per statement (it is the same for every read of a gateway).
            let resolution = waiting.first?.resolution ?? 0
            while batch.count < Self.batchLimit, let next = waiting.first, next.resolution == resolution {
                batch.append(next)
                waiting.removeFirst()
            }
            run(batch, resolution: resolution, on: connection, slot: index)
        }
    }

    private func run(_ batch: [Waiting], resolution: TimeInterval, on connection: PostgresConnection, slot: Int) {
        slots[slot].busy = true
        let done = eventLoop.makePromise(of: [StoredCustomerInfoRead.Found?].self)
        let reader = self.reader
        let keys = batch.map { (appID: $0.appID, appUserID: $0.appUserID) }
        // Started on this thread, and isolated to this loop (``LoopReader``): the exchange with the database never
        // waits for another thread.
        Task.immediate {
            do {
                done.succeed(try await reader.read(keys, resolution: resolution, on: connection))
            } catch {
                done.fail(error)
            }
        }
        done.futureResult.assumeIsolated().whenComplete { [self] result in
            slots[slot].busy = false
            switch result {
            case .success(let found):
                for (read, found) in zip(batch, found) { read.promise.succeed(found) }
            case .failure(let error):
                for read in batch { read.promise.fail(error) }
                failed(slot, connection, error)
            }
            dispatch()
        }
    }

    private func connect(_ index: Int) {
        slots[index].state = .connecting
        PostgresConnection.connect(on: eventLoop, configuration: configuration, id: index, logger: logger)
            .hop(to: eventLoop).assumeIsolated().whenComplete { [self] result in
                switch result {
                case .success(let connection):
                    guard !closed else {
                        connection.close().whenComplete { _ in }
                        return
                    }
                    slots[index].state = .ready(connection)
                    dispatch()
                case .failure(let error):
                    slots[index].state = .failed(retryAfter: .now() + .seconds(1))
                    logger.warning(
                        "stored customer reads: cannot connect to the database; the entitlements service answers",
                        metadata: ["error": "\(String(reflecting: error))"])
                }
            }
    }

    private func failed(_ index: Int, _ connection: PostgresConnection, _ error: any Error) {
        guard case .ready(let current) = slots[index].state, current === connection else { return }
        // A statement's own error leaves the connection usable; a lost connection does not.
        guard connection.isClosed else { return }
        slots[index].state = .failed(retryAfter: .now() + .seconds(1))
        logger.warning(
            "stored customer reads: lost a database connection", metadata: ["error": "\(String(reflecting: error))"])
    }
}

/// The gateway stopped while a read waited for a connection.
struct StoredReadsClosed: Error {}

/// Runs reads on the event loop's own executor: PostgresNIO's async API (named prepared statements, prepared once
/// per connection) without a hop to another thread and back.
private actor LoopReader {
    nonisolated let unownedExecutor: UnownedSerialExecutor
    let logger: Logger

    init(eventLoop: any EventLoop, logger: Logger) {
        self.unownedExecutor = eventLoop.executor.asUnownedSerialExecutor()
        self.logger = logger
    }

    /// One read alone, as the entitlements service reads it; several in one statement.
    func read(
        _ keys: [(appID: String, appUserID: String)], resolution: TimeInterval, on connection: PostgresConnection
    ) async throws -> [StoredCustomerInfoRead.Found?] {
        if keys.count == 1, let key = keys.first {
            return [
                try await StoredCustomerInfoRead.find(
                    appID: key.appID, appUserID: key.appUserID, resolution: resolution, on: connection, logger: logger)
            ]
        }
        return try await StoredCustomerInfoRead.Batch.read(
            keys, resolution: resolution, on: connection, logger: logger)
    }
}
