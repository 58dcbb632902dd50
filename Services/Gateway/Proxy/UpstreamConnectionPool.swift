import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// Keep-alive connections to one service on one event loop, shared by the requests the gateway forwards there
/// from clients on that loop.
///
/// A request leases a connection, uses it alone, and gives it back; at most `maximumConnections` are open and
/// further requests wait for one to come back. Each connection lives in a task of this service's ``run()``, so
/// connections are closed when the gateway shuts down (after its server has drained).
final class UpstreamConnectionPool: Service, Sendable {
    let host: String
    let port: Int
    private let connectTimeout: TimeAmount
    private let readTimeout: TimeAmount
    private let maximumConnections: Int
    /// The loop every connection of this pool lives on.
    let eventLoop: any EventLoop
    private let logger: Logger

    private typealias Waiter = CheckedContinuation<UpstreamConnection, any Error>

    private struct State {
        var idle: [UpstreamConnection] = []
        var open = 0
        var waiters: [Waiter] = []
        var shutDown = false
        var live: [ObjectIdentifier: UpstreamConnection] = [:]
    }

    private let state = NIOLockedValueBox(State())
    private let connectRequests: AsyncStream<Waiter>
    private let connectRequestsContinuation: AsyncStream<Waiter>.Continuation

    init(
        host: String,
        port: Int,
        connectTimeout: TimeAmount,
        readTimeout: TimeAmount,
        maximumConnections: Int = 256,
        eventLoop: any EventLoop,
        logger: Logger
    ) {
        self.host = host
        self.port = port
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.maximumConnections = maximumConnections
        self.eventLoop = eventLoop
        self.logger = logger
        (connectRequests, connectRequestsContinuation) = AsyncStream.makeStream(of: Waiter.self)
    }

    /// A connection for one request: an idle one, a new one, or the next one given back.
    func lease() async throws -> UpstreamConnection {
        try await withCheckedThrowingContinuation { (waiter: Waiter) in
            enum Action { case use(UpstreamConnection), connect, wait, fail }
            let action: Action = state.withLockedValue { state in
                if state.shutDown { return .fail }
                while let connection = state.idle.popLast() {
                    if connection.channel.isActive { return .use(connection) }
                }
                if state.open < maximumConnections {
                    state.open += 1
                    return .connect
                }
                state.waiters.append(waiter)
                return .wait
            }
            switch action {
            case .use(let connection): waiter.resume(returning: connection)
            case .connect: connectRequestsContinuation.yield(waiter)
            case .wait: break
            case .fail: waiter.resume(throwing: UpstreamConnectionClosed())
            }
        }
    }

    /// Gives a connection back: to the next waiting request, to the idle list, or closed when not `reusable`.
    func release(_ connection: UpstreamConnection, reusable: Bool) {
        guard reusable, connection.channel.isActive else {
            // The connection's task notices the close and updates the counts.
            connection.channel.close(promise: nil)
            return
        }
        connection.completedRequests += 1
        let waiter: Waiter? = state.withLockedValue { state in
            if state.shutDown { return nil }
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.idle.append(connection)
            return nil
        }
        if let waiter {
            waiter.resume(returning: connection)
        } else if state.withLockedValue({ $0.shutDown }) {
            connection.channel.close(promise: nil)
        }
    }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await gracefulShutdown()
                self.shutdown()
            }
            for await waiter in connectRequests {
                group.addTask { await self.openConnection(for: waiter) }
            }
        }
    }

    /// Closes every connection and refuses new leases.
    private func shutdown() {
        let (connections, waiters) = state.withLockedValue { state in
            state.shutDown = true
            let waiters = Array(state.waiters)
            state.waiters.removeAll()
            return (Array(state.live.values), waiters)
        }
        connectRequestsContinuation.finish()
        for waiter in waiters { waiter.resume(throwing: UpstreamConnectionClosed()) }
        for connection in connections { connection.channel.close(promise: nil) }
    }

    /// Connects, hands the connection to `waiter`, and keeps it open until it closes.
    private func openConnection(for waiter: Waiter) async {
        let readTimeout = self.readTimeout
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await ClientBootstrap.upstream(on: eventLoop, connectTimeout: connectTimeout)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: readTimeout))
                        try channel.pipeline.syncOperations.addHandler(UpstreamReadTimeoutHandler())
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                            wrappingChannelSynchronously: channel
                        )
                    }
                }
        } catch {
            connectionGone(nil)
            waiter.resume(throwing: error)
            return
        }
        try? await channel.executeThenClose { inbound, outbound in
            let connection = UpstreamConnection(channel: channel.channel, inbound: inbound, outbound: outbound)
            state.withLockedValue { $0.live[ObjectIdentifier(connection)] = connection }
            waiter.resume(returning: connection)
            try await channel.channel.closeFuture.get()
            connectionGone(connection)
        }
    }

    /// Bookkeeping when a connection closed (or failed to open): frees its place, and lets a waiter connect.
    private func connectionGone(_ connection: UpstreamConnection?) {
        let next: Waiter? = state.withLockedValue { state in
            state.open -= 1
            if let connection {
                state.live[ObjectIdentifier(connection)] = nil
                state.idle.removeAll { $0 === connection }
            }
            guard !state.shutDown, state.open < maximumConnections, !state.waiters.isEmpty else { return nil }
            state.open += 1
            return state.waiters.removeFirst()
        }
        if let next { connectRequestsContinuation.yield(next) }
    }
}

extension ClientBootstrap {
    /// A bootstrap for connections to services, shared by both proxy paths' pools.
    static func upstream(on eventLoop: any EventLoop, connectTimeout: TimeAmount) -> ClientBootstrap {
        ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            // Large downloads arrive in reads of up to 256 KiB instead of NIO's default 64 KiB: a quarter of the
            // reads and body parts to pass on; small answers still get small buffers (the allocator adapts).
            .channelOption(
                .recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 1 << 18)
            )
    }
}
