import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The client side of a request the router forwards: hands the exchange's answer to the router's handler, which
/// returns it as a Hummingbird response (``Forwarder/forward(_:to:identity:customer:requestID:on:)``).
///
/// An answer written whole (head, body, end) becomes a response with that body; one that is flushed before its end
/// (a streamed response) becomes a response whose body is read from an async sequence, with backpressure: while the
/// sequence holds enough, ``isWritable`` is `false` and the exchange stops reading from the service. A failure before
/// the head goes to the router as an error, which its middleware renders (and its tracing span records). Lives on
/// the exchange's event loop.
final class RouterClient: ProxyClient {
    /// The answer as the router's handler receives it.
    enum Answer: Sendable {
        /// A complete response; `nil` when it has no body.
        case whole(HTTPResponse, ByteBuffer?)
        /// A response whose body is streamed.
        case streamed(HTTPResponse, BodyParts)
    }

    typealias BodyParts = NIOThrowingAsyncSequenceProducer<
        ByteBuffer, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, Demand
    >

    let eventLoop: any EventLoop
    private let answer: EventLoopPromise<Answer>
    /// The exchange this client answers for (it holds the client, not the other way round).
    weak var exchange: ProxyExchange<RouterClient>?
    private var head: HTTPResponse?
    private var body: ByteBuffer?
    private var source: BodyParts.Source?
    private var answered = false
    private(set) var isWritable = true
    var pipeline: ChannelHandlerContext? { nil }

    init(eventLoop: any EventLoop, answer: EventLoopPromise<Answer>) {
        self.eventLoop = eventLoop
        self.answer = answer
    }

    func write(_ part: HTTPResponsePart, flush: Bool) {
        switch part {
        case .head(let response):
            head = response
        case .body(let buffer):
            if let source { return yielded(source.yield(buffer)) }
            if flush, !answered, let head { return startStreaming(head, first: buffer) }
            if var collected = body {
                body = nil
                collected.writeImmutableBuffer(buffer)
                body = collected
            } else {
                body = buffer
            }
        case .end:
            if let source {
                source.finish()
                self.source = nil
                return
            }
            guard !answered, let head else { return }
            answered = true
            answer.succeed(.whole(head, body))
        }
    }

    /// The router's answer is a Hummingbird response, in HTTP fields: the exchange writes those.
    func writeWhole(_ head: HTTPResponseHead, body: ByteBuffer?) -> Bool { false }

    func takes(_ problem: GatewayError) -> Bool {
        if !answered {
            answered = true
            answer.fail(problem)
        }
        return true
    }

    func abort(_ problem: GatewayError) {
        if let source {
            source.finish(problem)
            self.source = nil
        } else {
            _ = takes(problem)
        }
    }

    func exchangeEnded() {
        // An exchange abandoned without an answer (its upload failed): the router's handler answers that failure.
        _ = takes(.upstreamUnavailable(service: "upstream"))
    }

    /// The response's body is read again: the exchange may read from the service again.
    fileprivate func demanded() {
        isWritable = true
        exchange?.clientWritable()
    }

    /// The response's body is no longer read (the client left, or the body is complete).
    fileprivate func terminated() {
        source = nil
        exchange?.clientGone()
    }

    private func startStreaming(_ head: HTTPResponse, first: ByteBuffer) {
        let made = BodyParts.makeSequence(
            backPressureStrategy: .init(lowWatermark: 2, highWatermark: 8), finishOnDeinit: false,
            delegate: Demand(client: NIOLoopBound(self, eventLoop: eventLoop)))
        source = made.source
        answered = true
        answer.succeed(.streamed(head, made.sequence))
        yielded(made.source.yield(first))
    }

    private func yielded(_ result: BodyParts.Source.YieldResult) {
        if case .stopProducing = result { isWritable = false }
    }

    deinit {
        if !answered { answer.fail(UpstreamConnectionClosed()) }
    }

    /// Tells the client, on its loop, when the router reads the streamed body again or stops reading it.
    struct Demand: NIOAsyncSequenceProducerDelegate {
        let client: NIOLoopBound<RouterClient>

        func produceMore() {
            client.eventLoop.execute { client.value.demanded() }
        }

        func didTerminate() {
            client.eventLoop.execute { client.value.terminated() }
        }
    }
}
