import HTTPTypes
import NIOCore
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Sits in each client connection's pipeline between the HTTP codec and the router, and answers the requests
/// ``ChannelProxy`` takes (see there) itself, on the connection's event loop: no task, no async hop per request.
///
/// Requests it does not take pass through to the router untouched. One request is answered at a time, in order:
/// while it answers one, later (pipelined) requests wait here and no more bytes are read from the client until it is
/// done; while the router is answering, every new request goes to the router too, which keeps its own order.
final class ChannelProxyHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let proxy: ChannelProxy
    /// What the connection keeps between the requests it answers here (its key's cached answer, its client).
    private var connection = ChannelProxy.Connection()
    /// The request being answered here.
    private var exchange: ProxyExchange<PipelineClient>?
    /// What happens to the body of a request answered here while it arrives.
    private enum RequestBody {
        /// No request answered here is arriving.
        case none
        /// Dropped: a `GET` body means nothing.
        case discarding
        /// Handed to the exchange that forwards it (a `POST`).
        case forwarding
    }

    private var requestBody = RequestBody.none
    /// Requests handed to the router whose responses have not ended.
    private var routerResponsesOpen = 0
    /// Parts that arrived while a request was answered here, in order.
    private var held = CircularBuffer<NIOAny>()
    private var readHeld = false
    /// Events that arrived while a request was answered here (a quiesce at shutdown, a half-closed input): passed on
    /// afterwards, so that the router's side does not close the connection under the answer.
    private var heldEvents: [Any] = []

    init(proxy: ChannelProxy) {
        self.proxy = proxy
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard requestBody != .none || (exchange == nil && held.isEmpty) else { return held.append(data) }
        take(context: context, data)
    }

    /// Passes the rest of a request answered here to its exchange, or drops it; dispatches anything else. Returns
    /// whether it dispatched.
    @discardableResult
    private func take(context: ChannelHandlerContext, _ data: NIOAny) -> Bool {
        switch requestBody {
        case .none:
            dispatch(context: context, data)
            return true
        case .discarding:
            if case .end = unwrapInboundIn(data) { requestBody = .none }
        case .forwarding:
            switch unwrapInboundIn(data) {
            case .body(let part): exchange?.requestBodyReceived(part)
            case .end:
                requestBody = .none
                exchange?.requestBodyEnded()
            case .head:
                requestBody = .none  // cannot happen: the codec ends each request before the next head
            }
        }
        return false
    }

    private func dispatch(context: ChannelHandlerContext, _ data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data) {
            if routerResponsesOpen == 0,
                let plan = proxy.plan(
                    for: request, on: context.eventLoop, connection: &connection,
                    peer: context.channel.remoteAddress)
            {
                if case .none = plan.body { requestBody = .discarding } else { requestBody = .forwarding }
                let exchange = ProxyExchange(
                    request: request, plan: plan, forwarder: proxy.forwarder,
                    client: PipelineClient(handler: self, context: context))
                self.exchange = exchange
                exchange.start()
                return
            }
            routerResponsesOpen += 1
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), routerResponsesOpen > 0 { routerResponsesOpen -= 1 }
        context.write(data, promise: promise)
    }

    func read(context: ChannelHandlerContext) {
        // Reading goes on while a request is answered here (so that a closed connection is noticed), until a
        // pipelined request is waiting behind it.
        guard held.isEmpty else {
            readHeld = true
            return
        }
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { exchange?.clientWritable() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        exchange?.clientGone()
        exchange = nil
        codecContext = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard exchange == nil else { return heldEvents.append(event) }
        context.fireUserInboundEventTriggered(event)
    }

    /// The HTTP types codec's place in the pipeline (found once): an answer written there skips its conversion of
    /// the head (``PipelineClient/writeWhole(_:body:)``).
    private var codecContext: ChannelHandlerContext?

    func handlerRemoved(context: ChannelHandlerContext) {
        codecContext = nil
    }

    func codec(_ context: ChannelHandlerContext) -> ChannelHandlerContext? {
        if let codecContext { return codecContext }
        codecContext = try? context.pipeline.syncOperations.context(handlerType: HTTP1ToHTTPServerCodec.self)
        return codecContext
    }

    /// The request answered here is done: take up the requests that waited, and what was held back.
    func exchangeFinished(context: ChannelHandlerContext) {
        exchange = nil
        var dispatched = false
        while exchange == nil, let data = held.popFirst() {
            if take(context: context, data) { dispatched = true }
        }
        guard exchange == nil else { return }
        if dispatched { context.fireChannelReadComplete() }
        let events = heldEvents
        heldEvents.removeAll()
        for event in events { context.fireUserInboundEventTriggered(event) }
        if readHeld {
            readHeld = false
            context.read()
        }
    }
}
