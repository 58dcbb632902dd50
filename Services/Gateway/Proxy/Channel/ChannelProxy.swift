import Foundation
import HTTPTypes
import Logging
import NIOCore
import ShopkeeperCore
import ShopkeeperHTTP

/// The gateway's fast proxy path: what every connection's ``ChannelProxyHandler`` shares, and the decision of which
/// requests it answers itself.
///
/// It takes the common cases whole, inside the connection's channel pipeline: a `GET` without a body to a proxied
/// prefix, whose API key is remembered as valid and within its rate limit (or a keyless prefix), from a caller
/// without an `Origin` when CORS is configured; and the app's own writes, a public key's `POST` with a body of known
/// length within the route's limit (a purchase). Everything else (other writes, bodies of unknown or excessive
/// length, unknown or refused keys, CORS, the gateway's own routes) goes on to the router, which renders every refusal
/// and forwards the rest through the same ``Forwarder`` (``ProxyExchange``), so a client cannot tell the paths apart.
struct ChannelProxy: Sendable {
    /// One forwarded route of the table, with what each request needs of it worked out once.
    struct Entry: Sendable {
        var route: UpstreamRoute
        var keyless: Bool
        var bodyLimit: Int
        /// Whether one of the gateway's own paths lies under this prefix (then requests are checked against them).
        var coversOwnPaths: Bool
        /// The route's connection pools, one per event loop.
        var pools: [NIOLoopBoundBox<UpstreamPool>]
        /// Whether a documented path lies under the prefix (then the method is checked against them).
        var documented: Bool
        /// The route's label in the request metrics for a path below the prefix (`/v1/catalog/**`), made once.
        var metricsRouteBelow: String
        /// Whether requests offer the service to hand downloads off to ``Forwarder/files``.
        var offersFileDelivery: Bool
        var usesMicroCache: Bool
        /// Whether a customer info read may be answered from the stored info (``StoredCustomerReads``).
        var answersStoredReads: Bool
    }

    /// The table, most specific prefix first.
    let entries: [Entry]
    let authenticator: APIKeyAuthenticator
    let rateLimiter: TokenBucketRateLimiter
    let limits: RateLimits
    /// Who a public key's request counts against (the same rule as ``APIKeyMiddleware``).
    let clients: ClientAddressResolver
    /// The engine both paths forward with: pools, micro-cache, body limits, file delivery.
    let forwarder: Forwarder
    /// Whether CORS origins are configured (requests with an `Origin` then go to the router's CORS middleware).
    let corsEnabled: Bool
    /// Whether every request goes on to the router (tracing on: the router's middleware makes each request's span).
    let leavesAllToRouter: Bool
    /// Answers customer info reads from the stored info, when configured.
    let storedReads: StoredCustomerReads?

    /// Paths the gateway answers itself (``RouteTable/own``), never forwarded by this path even under a configured
    /// prefix.
    static let ownPrefixes: [Substring] = RouteTable.own.map { Substring($0.prefix) }

    init(
        routes: RouteTable, authenticator: APIKeyAuthenticator, rateLimiter: TokenBucketRateLimiter,
        limits: RateLimits, clients: ClientAddressResolver, forwarder: Forwarder, corsEnabled: Bool,
        leavesAllToRouter: Bool = false, storedReads: StoredCustomerReads? = nil
    ) {
        self.entries = routes.forwarded.map { forwarded in
            let route = forwarded.upstream
            return Entry(
                route: route, keyless: forwarded.keyless, bodyLimit: forwarded.bodyLimit,
                coversOwnPaths: Self.ownPrefixes.contains { route.matches($0) },
                pools: forwarder.pools.pools(for: route),
                documented: PublicRoutes.shopkeeper.documentsPaths(under: route.segments),
                metricsRouteBelow: route.prefix + "/**",
                offersFileDelivery: forwarder.files != nil && forwarded.localAnswers.contains(.fileDelivery),
                usesMicroCache: forwarded.localAnswers.contains(.microCache),
                answersStoredReads: storedReads != nil && forwarded.localAnswers.contains(.storedCustomerRead))
        }
        .sorted { $0.route.segments.count > $1.route.segments.count }
        self.authenticator = authenticator
        self.rateLimiter = rateLimiter
        self.limits = limits
        self.clients = clients
        self.forwarder = forwarder
        self.corsEnabled = corsEnabled
        self.leavesAllToRouter = leavesAllToRouter
        self.storedReads = storedReads
    }

    /// A customer info read answered from the stored info when it counts (``StoredCustomerReads``).
    struct StoredRead {
        var reads: StoredCustomerReads
        var connections: StoredReadConnections
        var appUserID: String
    }

    /// What a client connection keeps from one request for its next ones (a keep-alive client sends the same key
    /// from the same address): the cached answer for its key and its client address, so that they cost no hash,
    /// lock or address conversion after the first.
    struct Connection {
        /// The key cache's answer for the key the connection presented last (``APIKeyAuthenticator/Remembered``).
        var key: APIKeyAuthenticator.Remembered?
        /// Whom a public key's request without `X-Forwarded-For` counts against (the peer, as resolved).
        var peerClient: ClientKey?
    }

    /// The plan for `request` from the client connection's `peer`, or `nil` to leave it to the router; `connection`
    /// is what the connection keeps between its requests.
    func plan(
        for request: HTTPRequest, on eventLoop: any EventLoop, connection: inout Connection,
        peer: @autoclosure () -> SocketAddress?
    ) -> ProxyPlan? {
        let isWrite = request.method == .post
        guard request.method == .get || isWrite, !leavesAllToRouter, let target = request.path else { return nil }
        // One pass over the headers for the few this decision reads.
        var authorization: String?
        var bodyLength: Int?
        var givenRequestID: String?
        var nonce: String?
        var forwardedFor: [String] = []
        let readsForwardedFor = clients.readsForwardedFor
        for field in request.headerFields {
            switch field.name {
            case .contentLength where isWrite:
                guard bodyLength == nil, let length = Int(field.value), length >= 0 else { return nil }
                bodyLength = length
            case .contentLength: if field.value != "0" { return nil }
            // A chunked body, or a client waiting for `100 Continue`: the router's.
            case .transferEncoding, .expect: return nil
            case .origin: if corsEnabled { return nil }
            case .authorization: authorization = field.value
            case .requestID: givenRequestID = field.value
            case AnswerSigner.nonceField: nonce = field.value
            case ClientAddressResolver.forwardedFor: if readsForwardedFor { forwardedFor.append(field.value) }
            default: continue
            }
        }
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
        let pathSegments = path.split(separator: "/")
        guard let entry = entries.first(where: { $0.route.matches(segments: pathSegments) }) else { return nil }
        if entry.coversOwnPaths && Self.ownPrefixes.contains(where: { Self.isBelow(path, $0) }) { return nil }
        // A customer id spelled any way but the canonical, plain one is decoded and respelled on the router path.
        guard CustomerPath.isForwardableAsSent(segments: pathSegments) else { return nil }
        // A method the API does not document here is answered 405 by the router path.
        guard !entry.documented || PublicRoutes.shopkeeper.allows(request.method, path: path) else { return nil }
        if isWrite {
            // The router renders the refusals: a body over the route's limit (413), an encoded NUL in the path.
            guard !entry.keyless, (bodyLength ?? 0) <= entry.bodyLimit,
                !target.contains("%00")
            else { return nil }
        }
        guard let pool = entry.pools.first(where: { $0.eventLoop === eventLoop })?.value else { return nil }
        var identity: KeyIdentity?
        if !entry.keyless {
            guard let key = APIKeyMiddleware.bearerToken(authorization),
                let known = keyIdentity(of: key, connection: &connection),
                // Writes of secret keys are admin actions, audited on the router path.
                !isWrite || known.kind == .public,
                // A customer token is checked on the router path (it renders the refusal), before any cache.
                !CustomerBoundaryGate.applies(to: known, path: path),
                rateLimiter.acquire(
                    for: known,
                    client: client(of: known, forwardedFor: forwardedFor, connection: &connection, peer: peer()),
                    customer: known.kind == .public ? CustomerPath.idSegment(in: pathSegments).map(String.init) : nil,
                    limits: limits) == nil
            else { return nil }
            identity = known
        }
        let requestID = forwarder.requestIDs.id(given: givenRequestID)
        let metricsRoute =
            pathSegments.count == entry.route.segments.count ? entry.route.prefix : entry.metricsRouteBelow
        return ProxyPlan(
            route: entry.route, identity: identity, pool: pool, requestID: requestID, metricsRoute: metricsRoute,
            usesMicroCache: entry.usesMicroCache, offersFileDelivery: entry.offersFileDelivery && !isWrite,
            storedRead: identity == nil || isWrite || !entry.answersStoredReads
                ? nil : storedRead(target: target, path: path, on: eventLoop),
            body: isWrite ? .whole(length: bodyLength ?? 0) : .none, retriesOnStaleConnection: !isWrite,
            signing: AnswerSigning(signer: identity?.answerSigner, target: target, nonce: nonce))
    }

    /// The identity of `key` when the key cache has a fresh answer naming a valid key: the one the connection kept
    /// when it presents the same key again, otherwise the cache's (then kept).
    private func keyIdentity(of key: String, connection: inout Connection) -> KeyIdentity? {
        if let kept = connection.key, let identity = authenticator.identity(of: key, rememberedIn: kept) {
            return identity
        }
        connection.key = authenticator.remembered(key)
        return connection.key?.identity
    }

    /// Whom a request with `identity` counts against (``ClientAddressResolver``): without `X-Forwarded-For` the
    /// connection's peer, resolved once a connection.
    private func client(
        of identity: KeyIdentity, forwardedFor: [String], connection: inout Connection,
        peer: @autoclosure () -> SocketAddress?
    ) -> ClientKey {
        guard forwardedFor.isEmpty, identity.kind == .public else {
            return clients.client(of: identity, peer: peer(), forwardedFor: forwardedFor)
        }
        if let peerClient = connection.peerClient { return peerClient }
        let resolved = clients.client(of: identity, peer: peer(), forwardedFor: [])
        connection.peerClient = resolved
        return resolved
    }

    /// The stored read of a keyed request to `target` on a route that answers them, when ``StoredCustomerReads`` may.
    private func storedRead(target: String, path: Substring, on eventLoop: any EventLoop) -> StoredRead? {
        guard let storedReads, path.utf8.count == target.utf8.count,
            let appUserID = StoredCustomerReads.appUserID(in: path),
            let connections = storedReads.connections(on: eventLoop)
        else { return nil }
        return StoredRead(reads: storedReads, connections: connections, appUserID: String(appUserID))
    }

    /// Whether `path` is `prefix` or lies below it.
    private static func isBelow(_ path: Substring, _ prefix: Substring) -> Bool {
        path.hasPrefix(prefix) && (path.count == prefix.count || path.dropFirst(prefix.count).first == "/")
    }
}
