import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The client side of a ``ProxyExchange``: where its answer goes, on the exchange's event loop.
///
/// Two kinds exist: ``PipelineClient``, the client connection's pipeline itself (the requests ``ChannelProxy``
/// takes), and ``RouterClient``, which hands the answer to the router as a Hummingbird response (every other request
/// the gateway forwards). ``ProxyExchange`` is generic over it, so the pipeline's calls stay direct.
protocol ProxyClient {
    var eventLoop: any EventLoop { get }
    /// Whether the client takes more of a streamed response now; when not, reading from the service pauses until
    /// ``ProxyExchange/clientWritable()``.
    var isWritable: Bool { get }
    /// The client connection's pipeline, when the answer can go straight into it (a download sent from the content
    /// volume needs it).
    var pipeline: ChannelHandlerContext? { get }

    func write(_ part: HTTPResponsePart, flush: Bool)
    /// Sends a whole answer whose head is in HTTP/1's form already (head, body when not empty, end; flushed once), and
    /// returns `true`; or returns `false` without writing when this client takes only ``write(_:flush:)``.
    func writeWhole(_ head: HTTPResponseHead, body: ByteBuffer?) -> Bool
    /// The exchange failed before any of its answer went out. Returns whether the client answers `problem` itself
    /// (the router renders it, and its tracing span records it); otherwise the exchange writes it.
    func takes(_ problem: GatewayError) -> Bool
    /// The answer broke after its head went out: all that can be said now is a broken connection.
    func abort(_ problem: GatewayError)
    /// The exchange is over (answered, failed or abandoned).
    func exchangeEnded()
}

/// The client side of a request ``ChannelProxyHandler`` answers: the client connection's own pipeline.
struct PipelineClient: ProxyClient {
    unowned let handler: ChannelProxyHandler
    let context: ChannelHandlerContext

    var eventLoop: any EventLoop { context.eventLoop }
    var isWritable: Bool { context.channel.isWritable }
    var pipeline: ChannelHandlerContext? { context }

    func write(_ part: HTTPResponsePart, flush: Bool) {
        if flush {
            context.writeAndFlush(NIOAny(part), promise: nil)
        } else {
            context.write(NIOAny(part), promise: nil)
        }
    }

    /// Written below the HTTP types codec, which would convert the head to HTTP fields and back again.
    func writeWhole(_ head: HTTPResponseHead, body: ByteBuffer?) -> Bool {
        guard let codec = handler.codec(context) else { return false }
        codec.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        if let body, body.readableBytes > 0 {
            codec.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        }
        codec.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
        return true
    }

    func takes(_ problem: GatewayError) -> Bool { false }

    func abort(_ problem: GatewayError) {
        context.close(promise: nil)
    }

    func exchangeEnded() {
        handler.exchangeFinished(context: context)
    }
}
