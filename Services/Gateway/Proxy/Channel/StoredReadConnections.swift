import Foundation
import Logging
import NIOCore
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP

/// One event loop's database connections for the gateway's stored customer reads (``StoredCustomerReads``), made on
/// that loop, so that a read never leaves the client connection's thread.
///
/// Every method must be called on ``eventLoop``. A read takes the connection with the fewest reads in flight (a
/// connection runs its reads one after the other). A connection is made when a read first needs it and again, at
/// most once a second, after it failed; meanwhile ``read(appID:appUserID:resolution:)`` returns `nil` and the
/// request goes to the entitlements service, which answers everything this path answers.
final class StoredReadConnections {
    let eventLoop: any EventLoop
    private let configuration: PostgresConnection.Configuration
    private let reader: LoopReader
    private let logger: Logger
    private var slots: [Slot]
    private var closed = false

    private struct Slot {
        var state = State.idle
        var readsInFlight = 0

        enum State {
            case idle
            case connecting
            case ready(PostgresConnection)
            /// Failed: made again on a read after this time.
            case failed(retryAfter: NIODeadline)
        }
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
        guard !closed, let index = readySlot(), case .ready(let connection) = slots[index].state else { return nil }
        slots[index].readsInFlight += 1
        let promise = eventLoop.makePromise(of: StoredCustomerInfoRead.Found?.self)
        let reader = self.reader
        // Started on this thread, and isolated to this loop (``LoopReader``): the exchange with the database never
        // waits for another thread.
        Task.immediate {
            do {
                promise.succeed(
                    try await reader.read(appID: appID, appUserID: appUserID, resolution: resolution, on: connection))
            } catch {
                promise.fail(error)
            }
        }
        return promise.futureResult.assumeIsolated().always { [self] result in
            slots[index].readsInFlight -= 1
            if case .failure(let error) = result { failed(index, connection, error) }
        }.nonisolated()
    }

    /// Closes every connection and makes no more (at shutdown, after the server has drained).
    func close() {
        eventLoop.preconditionInEventLoop()
        closed = true
        for index in slots.indices {
            if case .ready(let connection) = slots[index].state { connection.close().whenComplete { _ in } }
            slots[index].state = .idle
        }
    }

    /// The ready slot with the fewest reads in flight; starts making a connection where one is due.
    private func readySlot() -> Int? {
        var best: Int?
        let now = NIODeadline.now()
        for index in slots.indices {
            switch slots[index].state {
            case .ready(let connection):
                guard !connection.isClosed else {
                    connect(index)
                    continue
                }
                if best.map({ slots[index].readsInFlight < slots[$0].readsInFlight }) ?? true { best = index }
            case .idle:
                connect(index)
            case .failed(let retryAfter) where retryAfter <= now:
                connect(index)
            case .connecting, .failed:
                continue
            }
        }
        return best
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

/// Runs reads on the event loop's own executor: PostgresNIO's async API (named prepared statements, prepared once
/// per connection) without a hop to another thread and back.
private actor LoopReader {
    nonisolated let unownedExecutor: UnownedSerialExecutor
    let logger: Logger

    init(eventLoop: any EventLoop, logger: Logger) {
        self.unownedExecutor = eventLoop.executor.asUnownedSerialExecutor()
        self.logger = logger
    }

    func read(appID: String, appUserID: String, resolution: TimeInterval, on connection: PostgresConnection)
        async throws -> StoredCustomerInfoRead.Found?
    {
        let bindings = try StoredCustomerInfoRead.bindings(appID: appID, appUserID: appUserID, resolution: resolution)
        return try await connection.run(StoredCustomerInfoRead.self, bindings, logger: logger) {
            try StoredCustomerInfoRead.Found($0)
        }.first
    }
}
