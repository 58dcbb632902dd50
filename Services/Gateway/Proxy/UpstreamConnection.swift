import NIOCore
import NIOHTTP1

/// One keep-alive HTTP/1.1 connection to a service, used by one request at a time.
///
/// The pool hands a connection to exactly one request (its lease) and takes it back afterwards, so the
/// iterator, which is not safe to share, is only ever used by one task at a time.
final class UpstreamConnection: @unchecked Sendable {
    let channel: any Channel
    private var inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    /// Requests completed on this connection; a failure on a reused connection may be a stale keep-alive.
    var completedRequests = 0

    init(
        channel: any Channel,
        inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>,
        outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    ) {
        self.channel = channel
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// The next part of the current response; throws when the connection closed before the response ended.
    func next() async throws -> HTTPClientResponsePart {
        guard let part = try await inbound.next() else { throw UpstreamConnectionClosed() }
        return part
    }
}

/// The service closed the connection before its response was complete.
struct UpstreamConnectionClosed: Error {}

/// The service sent nothing for longer than the read timeout.
struct UpstreamReadTimeout: Error {}

/// Turns an idle read into an ``UpstreamReadTimeout`` error for the waiting request, and closes the connection
/// (an idle pooled connection is closed the same way, which doubles as the pool's idle timeout).
final class UpstreamReadTimeoutHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.fireErrorCaught(UpstreamReadTimeout())
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
