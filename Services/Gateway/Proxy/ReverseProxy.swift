import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// Forwards an authenticated request to its service and streams the answer back.
///
/// Bodies are streamed both ways, never collected. Client-supplied `x-shopkeeper-*` headers, the API key and
/// hop-by-hop headers are dropped; the signed identity headers and the request id are added.
struct ReverseProxy: Sendable {
    let httpClient: HTTPClient
    let signature: InternalSignature
    let maxBodyBytes: Int
    /// Upper bound of a whole exchange; stalls are caught sooner by the client's read timeout.
    let requestDeadline: TimeAmount

    /// Headers never forwarded in either direction (RFC 9110 section 7.6.1), plus those the proxy sets itself.
    static let droppedHeaders: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authorization", "proxy-authenticate", "host", "authorization", "content-length",
    ]

    func forward(_ request: Request, identity: KeyIdentity, requestID: String?, route: UpstreamRoute, logger: Logger) async throws -> Response {
        let pathAndQuery = request.uri.description
        let contentLength = request.headers[.contentLength].flatMap(Int.init)
        if let contentLength, contentLength > maxBodyBytes {
            throw RequestError.bodyTooLarge(limit: maxBodyBytes)
        }

        var upstream = HTTPClientRequest(url: Self.join(route.baseURL, pathAndQuery))
        upstream.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers {
            let name = field.name.canonicalName
            if Self.droppedHeaders.contains(name) || name.hasPrefix(InternalHeader.prefix) || name == "x-request-id" {
                continue
            }
            upstream.headers.add(name: field.name.rawName, value: field.value)
        }
        if let requestID { upstream.headers.add(name: "x-request-id", value: requestID) }
        let caller = InternalCaller(appID: identity.appID, keyKind: identity.kind)
        for (name, value) in signature.headers(
            method: request.method.rawValue,
            pathAndQuery: pathAndQuery,
            caller: caller,
            contentSHA256: InternalSignature.unsignedPayload
        ) {
            upstream.headers.add(name: name, value: value)
        }
        if Self.hasBody(request.method, contentLength: contentLength, headers: request.headers) {
            let body = LimitedBody(base: request.body, limit: maxBodyBytes)
            upstream.body = .stream(body, length: contentLength.map { .known(Int64($0)) } ?? .unknown)
        }

        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(upstream, deadline: .now() + requestDeadline, logger: logger)
        } catch let error as RequestError {
            throw error
        } catch {
            throw mapped(error, service: route.service, logger: logger)
        }

        var headers = HTTPFields()
        for header in response.headers {
            let name = header.name.lowercased()
            if Self.droppedHeaders.contains(name) && name != "content-length" { continue }
            if name == "x-request-id" { continue }
            guard let fieldName = HTTPField.Name(header.name) else { continue }
            headers.append(HTTPField(name: fieldName, value: header.value))
        }
        let status = HTTPResponse.Status(code: Int(response.status.code))
        return Response(status: status, headers: headers, body: ResponseBody(asyncSequence: response.body))
    }

    private static func hasBody(_ method: HTTPRequest.Method, contentLength: Int?, headers: HTTPFields) -> Bool {
        if let contentLength { return contentLength > 0 }
        if headers[.transferEncoding] != nil { return true }
        return false
    }

    private static func join(_ base: URL, _ pathAndQuery: String) -> String {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text + pathAndQuery
    }

    private func mapped(_ error: any Error, service: String, logger: Logger) -> any Error {
        logger.warning("upstream call failed", metadata: ["service": "\(service)", "error": "\(error)"])
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .readTimeout, .deadlineExceeded, .connectTimeout, .writeTimeout:
                return GatewayError.upstreamTimeout(service: service)
            default:
                return GatewayError.upstreamUnavailable(service: service)
            }
        }
        if error is LimitedBodyTooLarge { return RequestError.bodyTooLarge(limit: maxBodyBytes) }
        return GatewayError.upstreamUnavailable(service: service)
    }
}

/// A request body that fails once more than `limit` bytes have passed, for bodies of unknown length.
struct LimitedBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
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
