import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ShopkeeperHTTP

extension Forwarder {
    /// Forwards a request the router took (its middleware has decided everything else) with a ``ProxyExchange`` on
    /// the pool of the client connection's `eventLoop`, and returns the answer as a response.
    ///
    /// The request body is streamed to the service as it arrives, at most the route's limit (413 past it), chunked
    /// when its length is unknown. `identity` is `nil` on a keyless route; `customer` is the customer a token proved.
    /// With tracing on, the head carries the request span's `traceparent`. A failure of the service is thrown as a
    /// ``GatewayError`` (502 or 504), for the router's middleware to render. `signing` signs the answer, when the app
    /// signs its answers.
    func forward(
        _ request: Request, to forwarded: ForwardedRoute, identity: KeyIdentity?, customer: String?,
        requestID: String?, signing: AnswerSigning? = nil, on eventLoop: any EventLoop
    ) async throws -> Response {
        let route = forwarded.upstream
        let limit = forwarded.bodyLimit
        let contentLength = request.headers[.contentLength].flatMap(Int.init)
        if let contentLength, contentLength > limit { throw RequestError.bodyTooLarge(limit: limit) }
        let hasBody = contentLength.map { $0 > 0 } ?? (request.headers[.transferEncoding] != nil)
        guard let pool = pools.pool(for: route, on: eventLoop) else {
            throw GatewayError.upstreamUnavailable(service: route.service)
        }
        var traceHeaders = HTTPHeaders()
        // The span lives in this task; the exchange runs on the event loop, outside it.
        if propagatesTrace { ServiceTracing.injectTraceContext(into: &traceHeaders) }
        let body: ProxyPlan.Body =
            hasBody ? .streamed(length: contentLength) : contentLength == 0 ? .whole(length: 0) : .none
        let plan = RoutedPlan(
            route: route, identity: identity, customer: customer, requestID: requestID ?? requestIDs.next(),
            body: body, usesMicroCache: forwarded.localAnswers.contains(.microCache), traceHeaders: traceHeaders,
            signing: signing)
        let loop = pool.eventLoop
        let answer = loop.makePromise(of: RouterClient.Answer.self)
        let head = request.head
        let exchange = try await loop.submit { [self] in
            start(head, plan, pool: pool.value, answer: answer)
        }.get()
        if hasBody {
            do {
                try await upload(request.body, limit: limit, to: exchange)
            } catch is LimitedBodyTooLarge {
                throw RequestError.bodyTooLarge(limit: limit)
            } catch let error as RequestError {
                throw error
            } catch {
                logger.warning(
                    "upstream call failed",
                    metadata: ["service": "\(route.service)", "error": "\(error)", "request_id": "\(plan.requestID)"])
                throw GatewayError.upstream(error, service: route.service)
            }
        }
        switch try await answer.futureResult.get() {
        case .whole(let head, let body):
            return Response(
                status: head.status, headers: head.headerFields,
                body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
        case .streamed(let head, let parts):
            return Response(
                status: head.status, headers: head.headerFields,
                body: ResponseBody { writer in
                    for try await part in parts { try await writer.write(part) }
                    try await writer.finish(nil)
                })
        }
    }

    /// What the router decided about a request, taken to the event loop where its exchange runs.
    private struct RoutedPlan: Sendable {
        var route: UpstreamRoute
        var identity: KeyIdentity?
        var customer: String?
        var requestID: String
        var body: ProxyPlan.Body
        var usesMicroCache: Bool
        var traceHeaders: HTTPHeaders
        var signing: AnswerSigning?
    }

    /// Starts the exchange on its loop (the pool's); a body of length zero is complete at once.
    private func start(
        _ head: HTTPRequest, _ routed: RoutedPlan, pool: UpstreamPool, answer: EventLoopPromise<RouterClient.Answer>
    ) -> NIOLoopBound<ProxyExchange<RouterClient>> {
        let plan = ProxyPlan(
            route: routed.route, identity: routed.identity, customer: routed.customer, pool: pool,
            requestID: routed.requestID, metricsRoute: nil, usesMicroCache: routed.usesMicroCache, body: routed.body,
            retriesOnStaleConnection: !routed.body.isStreamed, traceHeaders: routed.traceHeaders,
            signing: routed.signing)
        let client = RouterClient(eventLoop: pool.eventLoop, answer: answer)
        let exchange = ProxyExchange(request: head, plan: plan, forwarder: self, client: client)
        client.exchange = exchange
        exchange.start()
        if case .whole = routed.body { exchange.requestBodyEnded() }
        return NIOLoopBound(exchange, eventLoop: pool.eventLoop)
    }

    /// Streams `body` to the exchange's service, at most `limit` bytes, each part once the connection took the one
    /// before. Returns once it is sent, or once the exchange takes no more (then its answer says why); throws when
    /// reading the client's body failed (the exchange is abandoned).
    private func upload(
        _ body: RequestBody, limit: Int, to exchange: NIOLoopBound<ProxyExchange<RouterClient>>
    ) async throws {
        let loop = exchange.eventLoop
        do {
            try await loop.flatSubmit { exchange.value.uploadReady() }.get()
        } catch {
            return
        }
        var parts = LimitedBody(base: body, limit: limit).makeAsyncIterator()
        while true {
            let part: ByteBuffer?
            do {
                part = try await parts.next()
            } catch {
                loop.execute { exchange.value.uploadFailed(error) }
                throw error
            }
            do {
                guard let part else {
                    try await loop.flatSubmit { exchange.value.uploadEnded() }.get()
                    return
                }
                try await loop.flatSubmit { exchange.value.uploadReceived(part) }.get()
            } catch {
                return
            }
        }
    }
}

/// A request body that fails once more than `limit` bytes have passed, for bodies of unknown length.
struct LimitedBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let limit: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int
        var seen = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let buffer = try await base.next() else { return nil }
            seen += buffer.readableBytes
            if seen > limit { throw LimitedBodyTooLarge() }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit)
    }
}

/// A streamed body passed its limit.
struct LimitedBodyTooLarge: Error {}
