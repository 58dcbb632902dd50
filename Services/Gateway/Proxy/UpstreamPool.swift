import NIOCore
import NIOHTTP1
import NIOPosix

/// Keep-alive connections to one service, owned by one event loop: the gateway's one upstream pool, which every
/// ``ProxyExchange`` leases from. Leases and releases are plain calls on that loop, with no locks and no tasks.
///
/// Every method must be called on ``eventLoop``. At most `maximumConnections` are open; further requests wait for
/// one to come back. An idle connection closes after the read timeout (its ``IdleStateHandler``).
final class UpstreamPool {
    typealias Waiter = (Result<UpstreamConnection, any Error>) -> Void

    let host: String
    let port: Int
    let eventLoop: any EventLoop
    private let connectTimeout: TimeAmount
    private let readTimeout: TimeAmount
    private let maximumConnections: Int

    private var idle: [UpstreamConnection] = []
    private var open = 0
    private var waiters = CircularBuffer<Waiter>()
    private var closed = false

    init(
        host: String, port: Int, eventLoop: any EventLoop, connectTimeout: TimeAmount, readTimeout: TimeAmount,
        maximumConnections: Int
    ) {
        self.host = host
        self.port = port
        self.eventLoop = eventLoop
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.maximumConnections = maximumConnections
    }

    /// Calls `waiter` with a connection for one request: an idle one at once, a new one once connected, or the
    /// next one given back.
    func lease(_ waiter: @escaping Waiter) {
        eventLoop.preconditionInEventLoop()
        if closed { return waiter(.failure(UpstreamConnectionClosed())) }
        if let connection = leaseIdle() { return waiter(.success(connection)) }
        guard open < maximumConnections else { return waiters.append(waiter) }
        open += 1
        connect(for: waiter)
    }

    /// An idle connection for one request, when one is open: what ``lease(_:)`` gives at once, for a caller that
    /// then needs no closure.
    func leaseIdle() -> UpstreamConnection? {
        eventLoop.preconditionInEventLoop()
        guard !closed else { return nil }
        while let connection = idle.popLast() {
            if connection.channel.isActive { return connection }
        }
        return nil
    }

    /// Gives a connection back: to the next waiting request, to the idle list, or closed when not `reusable`.
    func release(_ connection: UpstreamConnection, reusable: Bool) {
        eventLoop.preconditionInEventLoop()
        connection.router.receiver = nil
        guard reusable, !closed, connection.channel.isActive else {
            // `connectionClosed` updates the counts once it has closed.
            connection.channel.close(promise: nil)
            return
        }
        connection.completedRequests += 1
        if let waiter = waiters.popFirst() {
            waiter(.success(connection))
        } else {
            idle.append(connection)
        }
    }

    /// Closes every idle connection and refuses new leases (at shutdown, after the server has drained).
    func close() {
        eventLoop.preconditionInEventLoop()
        closed = true
        let (idle, waiters) = (self.idle, self.waiters)
        self.idle.removeAll()
        self.waiters.removeAll()
        for waiter in waiters { waiter(.failure(UpstreamConnectionClosed())) }
        for connection in idle { connection.channel.close(promise: nil) }
    }

    private func connect(for waiter: @escaping Waiter) {
        let readTimeout = self.readTimeout
        ClientBootstrap.upstream(on: eventLoop, connectTimeout: connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Request heads are built from fields `HTTPTypes` has already validated, and the gateway's own.
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(enableOutboundHeaderValidation: false)
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: readTimeout))
                    try channel.pipeline.syncOperations.addHandler(UpstreamResponseRouter())
                }
            }
            .connect(host: host, port: port)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let channel):
                    guard let router = try? channel.pipeline.syncOperations.handler(type: UpstreamResponseRouter.self)
                    else {
                        channel.close(promise: nil)
                        self.connectionClosed(nil)
                        return waiter(.failure(UpstreamConnectionClosed()))
                    }
                    let connection = UpstreamConnection(channel: channel, router: router)
                    channel.closeFuture.assumeIsolated().whenComplete { _ in self.connectionClosed(connection) }
                    waiter(.success(connection))
                case .failure(let error):
                    self.connectionClosed(nil)
                    waiter(.failure(error))
                }
            }
    }

    /// Bookkeeping when a connection closed (or failed to open): frees its place, and connects for a waiter.
    private func connectionClosed(_ connection: UpstreamConnection?) {
        open -= 1
        if let connection { idle.removeAll { $0 === connection } }
        guard !closed, open < maximumConnections, let waiter = waiters.popFirst() else { return }
        open += 1
        connect(for: waiter)
    }
}

/// One keep-alive HTTP/1.1 connection to a service, used by one request at a time.
final class UpstreamConnection {
    let channel: any Channel
    let router: UpstreamResponseRouter
    /// Requests completed on this connection; a failure on a reused connection may be a stale keep-alive.
    var completedRequests = 0

    init(channel: any Channel, router: UpstreamResponseRouter) {
        self.channel = channel
        self.router = router
    }
}

/// Receives the parts of one response from an upstream connection, on its event loop.
protocol UpstreamResponseReceiver: AnyObject {
    func upstreamReceived(_ part: HTTPClientResponsePart)
    /// The connection failed, timed out or closed before the response ended.
    func upstreamFailed(_ error: any Error)
}

/// The last handler of an upstream connection: hands each response part to the request using the connection.
final class UpstreamResponseRouter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    /// The request using the connection; `nil` while it is idle in its pool.
    var receiver: (any UpstreamResponseReceiver)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let receiver else {
            // Nothing was asked: a service speaking out of turn cannot be trusted with the next request.
            context.close(promise: nil)
            return
        }
        receiver.upstreamReceived(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(UpstreamConnectionFailed(underlying: error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(UpstreamConnectionClosed())
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            // A request waiting this long gets a timeout; an idle pooled connection is simply closed.
            fail(UpstreamReadTimeout())
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func fail(_ error: any Error) {
        let receiver = self.receiver
        self.receiver = nil
        receiver?.upstreamFailed(error)
    }
}

/// The connection to a service failed with `underlying` (a socket error, an unparsable response).
struct UpstreamConnectionFailed: Error {
    var underlying: any Error
}

/// The service closed the connection before its response was complete.
struct UpstreamConnectionClosed: Error {}

/// The service sent nothing for longer than the read timeout.
struct UpstreamReadTimeout: Error {}

extension ClientBootstrap {
    /// A bootstrap for connections to services.
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
