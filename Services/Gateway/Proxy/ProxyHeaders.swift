import HTTPTypes
import NIOCore
import NIOHTTP1
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// What the gateway changes in the heads it forwards (every ``ProxyExchange``, whichever path took the request):
/// client-supplied `x-shopkeeper-*` headers, the API key and hop-by-hop headers are dropped
/// on the way in, the signed identity headers and the request id added; hop-by-hop and internal (`x-shopkeeper-*`)
/// headers are dropped on the way out.
enum ProxyHeaders {
    /// Headers never forwarded in either direction (RFC 9110 section 7.6.1), plus those the proxy sets itself.
    static let dropped: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authorization", "proxy-authenticate", "host", "authorization", "content-length", "x-request-id",
        // A customer token is the gateway's to check; the service gets the customer it proved, signed.
        "shopkeeper-customer-token",
        // A console session's cookie is the gateway's too: the service gets the session's identity, signed.
        "cookie",
    ]

    /// The head of the request to `route`'s service. `identity` is `nil` on a keyless route; `customer` is the
    /// customer a token proved (``CustomerBoundaryGate``), sent in the signed identity.
    static func upstreamRequest(
        _ request: HTTPRequest,
        identity: KeyIdentity?,
        customer: String? = nil,
        requestID: String?,
        route: UpstreamRoute,
        contentLength: Int?,
        hasBody: Bool,
        signature: InternalSignature,
        offersFileDelivery: Bool = false
    ) -> HTTPRequestHead {
        let pathAndQuery = request.path ?? "/"
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headerFields.count + 8)
        headers.add(name: "host", value: route.hostHeader)
        let isGet = request.method == .get
        for field in request.headerFields {
            let name = field.name.canonicalName
            // On a keyless route the caller's Authorization is its own proof (a store's token): it goes on.
            if name == "authorization" && identity == nil {
                headers.add(name: field.name.rawName, value: field.value)
                continue
            }
            if dropped.contains(name) || name.hasPrefix(InternalHeader.prefix) { continue }
            // For GET the gateway answers If-None-Match itself, from the full response it may also cache; a keyless
            // route's service sees it (a download too large to buffer answers 304 itself).
            if isGet && identity != nil && name == "if-none-match" { continue }
            headers.add(name: field.name.rawName, value: field.value)
        }
        if let requestID { headers.add(name: "x-request-id", value: requestID) }
        if offersFileDelivery { headers.add(name: InternalHeader.fileDelivery, value: FileHandoff.deliveryValue) }
        if let contentLength {
            headers.add(name: "content-length", value: String(contentLength))
        } else if hasBody {
            headers.add(name: "transfer-encoding", value: "chunked")
        }
        let caller = identity.map { InternalCaller(appID: $0.appID, keyKind: $0.kind, customer: customer) }
        let upstreamPath = route.basePath + pathAndQuery
        for (name, value) in signature.headers(
            method: request.method.rawValue,
            pathAndQuery: upstreamPath,
            caller: caller,
            contentSHA256: InternalSignature.unsignedPayload
        ) {
            headers.add(name: name, value: value)
        }
        return HTTPRequestHead(
            version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: upstreamPath,
            headers: headers)
    }

    /// A service's response head as the client will see it.
    struct Downstream {
        var status: HTTPResponse.Status
        /// The forwarded headers (with `Content-Length` when the service sent one), as NIO's codec holds them: the
        /// pure proxy's answer goes out with them as they are (``forwardedHead(requestID:)``).
        var headers: HTTPHeaders
        var contentLength: Int?
        /// How long the service lets the gateway keep this response (``ResponseMicroCache``).
        var cacheTTL: Duration?
        /// Whether the service marked the response the same for every customer (one entry keeps it for all).
        var isCustomerNeutral = false
        /// Whether the connection may carry another request afterwards.
        var keepAlive: Bool
        /// A download the service left to the gateway to send from the content volume (only when offered).
        var handoff: FileHandoff?
        /// Whether the service sent hand-off headers at all (then a `nil` ``handoff`` means they were malformed).
        var hasHandoffHeaders = false
        /// Whether every value may go out as it is (no CR, LF or NUL: HTTP fields would legalize those, and nothing
        /// on the way out checks a head in HTTP/1's form).
        var isForwardableAsRead = true

        /// ``headers`` as HTTP fields (for an answer the gateway keeps, compares, signs or streams).
        var fields: HTTPFields {
            var fields = HTTPFields()
            fields.reserveCapacity(headers.count)
            // Every name was checked by ``ProxyHeaders/downstream(_:)``.
            for (name, value) in headers {
                if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
            }
            return fields
        }

        /// Whether a response to `method` has no body (`HEAD`, 204, 304).
        func isBodiless(for method: HTTPRequest.Method) -> Bool {
            method == .head || status.code == 204 || status.code == 304
        }

        /// The head as the client gets it when the gateway neither keeps, compares nor signs the answer (the pure
        /// proxy's case): the forwarded headers and the request id, without a conversion to HTTP fields and back.
        func forwardedHead(requestID: String) -> HTTPResponseHead {
            var headers = self.headers
            headers.add(name: "x-request-id", value: requestID)
            return HTTPResponseHead(
                version: .http1_1,
                status: HTTPResponseStatus(statusCode: status.code, reasonPhrase: status.reasonPhrase),
                headers: headers)
        }
    }

    static func downstream(_ head: HTTPResponseHead) -> Downstream {
        var headers = HTTPHeaders()
        headers.reserveCapacity(head.headers.count + 1)
        var contentLength: Int?
        var cacheTTL: Duration?
        var customerNeutral = false
        var hasHandoff = false
        var forwardable = true
        for (name, value) in head.headers {
            // A name HTTP fields cannot hold is dropped, as it always was.
            guard let lowered = HTTPField.Name(name)?.canonicalName else { continue }
            if lowered == "content-length" { contentLength = Int(value) }
            if lowered.utf8.starts(with: InternalHeader.prefix.utf8) {
                // Internal headers never leave the gateway.
                if lowered == ResponseMicroCache.ttlHeader { cacheTTL = Int64(value).map { .milliseconds($0) } }
                if lowered == ResponseMicroCache.customerNeutralHeader { customerNeutral = value == "1" }
                if lowered == FileHandoff.pathHeader { hasHandoff = true }
                continue
            }
            if dropped.contains(lowered) { continue }
            if forwardable && value.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) {
                forwardable = false
            }
            headers.add(name: name, value: value)
        }
        if let contentLength { headers.add(name: "content-length", value: String(contentLength)) }
        return Downstream(
            status: HTTPResponse.Status(code: Int(head.status.code)), headers: headers, contentLength: contentLength,
            cacheTTL: cacheTTL, isCustomerNeutral: customerNeutral, keepAlive: head.isKeepAlive,
            handoff: hasHandoff ? FileHandoff { head.headers.first(name: $0) } : nil, hasHandoffHeaders: hasHandoff,
            isForwardableAsRead: forwardable)
    }

    /// A complete answer the gateway gives itself: a buffered `GET` response, or `304 Not Modified` when the client
    /// already holds it.
    static func answer(_ entry: ResponseMicroCache.Entry, ifNoneMatch: String?) -> (
        status: HTTPResponse.Status, fields: HTTPFields, body: ByteBuffer?
    ) {
        if entry.isNotModified(ifNoneMatch: ifNoneMatch) { return (.notModified, entry.notModifiedHeaders, nil) }
        return (entry.status, entry.headers, entry.body)
    }
}
