import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// Forwards an authenticated request to its service over a pooled keep-alive connection and streams the answer
/// back.
///
/// Request bodies are streamed with a byte limit. Responses with a known length up to `bufferLimit` are read whole
/// before answering (the connection goes back to the pool at once); larger or unknown-length responses are
/// streamed. Client-supplied `x-shopkeeper-*` headers, the API key and hop-by-hop headers are dropped; the signed
/// identity headers and the request id are added.
struct ReverseProxy: Sendable {
    let signature: InternalSignature
    let maxBodyBytes: Int
    /// Short-lived copies of responses the services mark cacheable (the catalog), shared with the channel path.
    let cache: ResponseMicroCache
    /// Responses up to this many bytes (with a `Content-Length`) are buffered rather than streamed.
    var bufferLimit = Self.defaultBufferLimit
    static let defaultBufferLimit = 256 * 1024
    /// Whether forwarded heads carry the request span's `traceparent` (tracing on: ``ServiceTracing``).
    var propagatesTrace = false

    /// Forwards `request` to `route`'s service. `identity` is `nil` on a keyless route: nothing is cached and the
    /// service sees no app identity. `customer` is the customer a token proved (``CustomerBoundaryGate``): it goes
    /// to the service in the signed identity, and such requests never use the micro-cache (its entries are per app,
    /// not per customer). `maxBodyBytes` overrides the proxy's body limit for this request.
    func forward(
        _ request: Request,
        identity: KeyIdentity?,
        customer: String? = nil,
        requestID: String?,
        route: UpstreamRoute,
        pool: UpstreamConnectionPool,
        logger: Logger,
        maxBodyBytes: Int? = nil
    ) async throws -> Response {
        let maxBodyBytes = maxBodyBytes ?? self.maxBodyBytes
        let signing = AnswerSigning(
            signer: identity?.answerSigner, target: request.head.path,
            nonce: request.headers[AnswerSigner.nonceField])
        let uri = request.uri.description
        let isGet = request.method == .get
        let cacheable = customer == nil
        if isGet, cacheable, let identity, let entry = cache.lookup(appID: identity.appID, uri: uri) {
            return Self.answer(entry, ifNoneMatch: request.headers[.ifNoneMatch], signing: signing)
        }
        if !isGet && request.method != .head, let identity {
            cache.invalidate(appID: identity.appID)
        }
        let contentLength = request.headers[.contentLength].flatMap(Int.init)
        if let contentLength, contentLength > maxBodyBytes {
            throw RequestError.bodyTooLarge(limit: maxBodyBytes)
        }
        let hasBody = contentLength.map { $0 > 0 } ?? (request.headers[.transferEncoding] != nil)
        var head = ProxyHeaders.upstreamRequest(
            request.head, identity: identity, customer: customer, requestID: requestID, route: route,
            contentLength: contentLength, hasBody: hasBody, signature: signature)
        if propagatesTrace { ServiceTracing.injectTraceContext(into: &head.headers) }

        var attempt = 0
        while true {
            attempt += 1
            let connection: UpstreamConnection
            do {
                connection = try await pool.lease()
            } catch {
                throw mapped(error, route: route, logger: logger, maxBodyBytes: maxBodyBytes)
            }
            let reused = connection.completedRequests > 0
            var sentBody = false
            do {
                if hasBody {
                    try await connection.outbound.write(.head(head))
                    sentBody = true
                    for try await buffer in LimitedBody(base: request.body, limit: maxBodyBytes) {
                        try await connection.outbound.write(.body(.byteBuffer(buffer)))
                    }
                    try await connection.outbound.write(.end(nil))
                } else {
                    try await connection.outbound.write(contentsOf: [.head(head), .end(nil)])
                }
                guard case .head(let responseHead) = try await connection.next() else {
                    throw UpstreamConnectionClosed()
                }
                let response = try await response(
                    responseHead, method: request.method, connection: connection, pool: pool, signing: signing)
                guard isGet, let cacheable = response.cacheable else { return response.response }
                if cacheable.ttl > .zero, customer == nil, let identity {
                    cache.store(appID: identity.appID, uri: uri, entry: cacheable.entry, ttl: cacheable.ttl)
                }
                return Self.answer(cacheable.entry, ifNoneMatch: request.headers[.ifNoneMatch], signing: signing)
            } catch {
                pool.release(connection, reusable: false)
                // A keep-alive connection the service had already closed: retry once when nothing can be lost.
                if reused, !sentBody, attempt == 1, error is UpstreamConnectionClosed || error is ChannelError {
                    continue
                }
                throw mapped(error, route: route, logger: logger, maxBodyBytes: maxBodyBytes)
            }
        }
    }

    /// A response from a service, and whether it may be cached (and for how long).
    struct UpstreamResponse {
        var response: Response
        var cacheable: (entry: ResponseMicroCache.Entry, ttl: Duration)?
    }

    private func response(
        _ head: HTTPResponseHead,
        method: HTTPRequest.Method,
        connection: UpstreamConnection,
        pool: UpstreamConnectionPool,
        signing: AnswerSigning?
    ) async throws -> UpstreamResponse {
        let downstream = ProxyHeaders.downstream(head)
        let (status, contentLength) = (downstream.status, downstream.contentLength)
        var fields = downstream.fields
        let reusable = downstream.keepAlive
        let bodiless = downstream.isBodiless(for: method)
        if bodiless || (contentLength ?? .max) <= (signing == nil ? bufferLimit : AnswerSigning.bufferLimit) {
            var body = ByteBuffer()
            while true {
                switch try await connection.next() {
                case .body(var part): body.writeBuffer(&part)
                case .end:
                    pool.release(connection, reusable: reusable)
                    if method == .get, !bodiless {
                        // Answered by the gateway: it evaluates If-None-Match (and signs), and may keep the response.
                        let entry = ResponseMicroCache.Entry(status: status, headers: fields, body: body)
                        let ttl = status == .ok ? downstream.cacheTTL : nil
                        return UpstreamResponse(
                            response: Response(status: status, headers: fields, body: ResponseBody(byteBuffer: body)),
                            cacheable: (entry, ttl ?? .zero)
                        )
                    }
                    signing?.sign(&fields, status: status, body: bodiless ? nil : body)
                    return UpstreamResponse(
                        response: Response(
                            status: status, headers: fields,
                            body: bodiless ? ResponseBody() : ResponseBody(byteBuffer: body)),
                        cacheable: nil
                    )
                case .head: throw UpstreamConnectionClosed()
                }
            }
        }
        let lease = ConnectionLease(connection: connection, pool: pool)
        let streamed = Response(
            status: status,
            headers: fields,
            body: ResponseBody { writer in
                do {
                    while true {
                        switch try await lease.connection.next() {
                        case .body(let part): try await writer.write(part)
                        case .end:
                            lease.release(reusable: reusable)
                            try await writer.finish(nil)
                            return
                        case .head: throw UpstreamConnectionClosed()
                        }
                    }
                } catch {
                    lease.release(reusable: false)
                    throw error
                }
            }
        )
        return UpstreamResponse(response: streamed, cacheable: nil)
    }

    /// A buffered `GET` response, or `304 Not Modified` when the client already holds it; signed when the app signs.
    private static func answer(_ entry: ResponseMicroCache.Entry, ifNoneMatch: String?, signing: AnswerSigning?)
        -> Response
    {
        let (status, answerFields, body) = ProxyHeaders.answer(entry, ifNoneMatch: ifNoneMatch)
        var fields = answerFields
        signing?.sign(&fields, status: status, body: body)
        return Response(
            status: status, headers: fields, body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }

    private func mapped(_ error: any Error, route: UpstreamRoute, logger: Logger, maxBodyBytes: Int) -> any Error {
        if error is RequestError { return error }
        if error is LimitedBodyTooLarge { return RequestError.bodyTooLarge(limit: maxBodyBytes) }
        logger.warning("upstream call failed", metadata: ["service": "\(route.service)", "error": "\(error)"])
        return GatewayError.upstream(error, service: route.service)
    }
}

/// A streamed response's hold on its connection; gives it back (closed) if the response is dropped unread.
final class ConnectionLease: Sendable {
    let connection: UpstreamConnection
    private let pool: UpstreamConnectionPool
    private let released = NIOLockedValueBox(false)

    init(connection: UpstreamConnection, pool: UpstreamConnectionPool) {
        self.connection = connection
        self.pool = pool
    }

    func release(reusable: Bool) {
        let first = released.withLockedValue { released in
            defer { released = true }
            return !released
        }
        if first { pool.release(connection, reusable: reusable) }
    }

    deinit {
        if !released.withLockedValue({ $0 }) { pool.release(connection, reusable: false) }
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
