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
        /// The forwarded headers, with `Content-Length` when the service sent one.
        var fields: HTTPFields
        var contentLength: Int?
        /// How long the service lets the gateway keep this response (``ResponseMicroCache``).
        var cacheTTL: Duration?
        /// Whether the connection may carry another request afterwards.
        var keepAlive: Bool
        /// A download the service left to the gateway to send from the content volume (only when offered).
        var handoff: FileHandoff?
        /// Whether the service sent hand-off headers at all (then a `nil` ``handoff`` means they were malformed).
        var hasHandoffHeaders = false

        /// Whether a response to `method` has no body (`HEAD`, 204, 304).
        func isBodiless(for method: HTTPRequest.Method) -> Bool {
            method == .head || status.code == 204 || status.code == 304
        }
    }

    static func downstream(_ head: HTTPResponseHead) -> Downstream {
        var fields = HTTPFields()
        fields.reserveCapacity(head.headers.count)
        var contentLength: Int?
        var cacheTTL: Duration?
        var hasHandoff = false
        for (name, value) in head.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            let lowered = fieldName.canonicalName
            if lowered == "content-length" { contentLength = Int(value) }
            if lowered.hasPrefix(InternalHeader.prefix) {
                // Internal headers never leave the gateway.
                if lowered == ResponseMicroCache.ttlHeader { cacheTTL = Int64(value).map { .milliseconds($0) } }
                if lowered == FileHandoff.pathHeader { hasHandoff = true }
                continue
            }
            if dropped.contains(lowered) { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        if let contentLength { fields[.contentLength] = String(contentLength) }
        return Downstream(
            status: HTTPResponse.Status(code: Int(head.status.code)), fields: fields, contentLength: contentLength,
            cacheTTL: cacheTTL, keepAlive: head.isKeepAlive,
            handoff: hasHandoff ? FileHandoff { head.headers.first(name: $0) } : nil, hasHandoffHeaders: hasHandoff)
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
