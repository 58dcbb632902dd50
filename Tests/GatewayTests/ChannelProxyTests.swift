import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOPosix
import ShopkeeperCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Synchronization
import Testing

@testable import Gateway

/// The gateway's channel path (``ChannelProxyHandler``): which requests it takes, and that what it answers is what
/// the router's path would answer (identity, request ids, refusals, 304s, streaming), in order with the router's
/// answers on one connection.
@Suite struct ChannelProxyTests {
    /// Keys remembered for a minute, so that after a first request the channel path takes keyed `GET`s.
    static let rememberKeys = ["SHOPKEEPER_KEY_CACHE_SECONDS": "60"]

    /// An upstream that shows what it was sent.
    static func upstream() -> Application<RouterResponder<BasicRequestContext>> {
        let router = Router()
        router.get("/v1/catalog/seen") { request, _ in
            var seen = Self.identityHeaders(of: request)
            seen["if-none-match"] = request.headers[.ifNoneMatch]
            seen["path"] = request.uri.description
            let body = try JSONSerialization.data(withJSONObject: seen, options: [.sortedKeys])
            return Response(
                status: .ok, headers: [.contentType: "application/json", .eTag: "\"seen-1\""],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("/v1/catalog/small/:n") { _, context in
            "small \(try context.parameters.require("n"))"
        }
        router.get("/v1/catalog/big") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/octet-stream"],
                body: .init(byteBuffer: ByteBuffer(bytes: Self.bigBody)))
        }
        router.post("/v1/catalog/echo") { request, _ in
            String(buffer: try await request.body.collect(upTo: 1 << 20))
        }
        // What a write was sent: the identity headers, the length and the body.
        router.post("/v1/catalog/write") { request, _ in
            var seen = Self.identityHeaders(of: request)
            seen["content-length"] = request.headers[.contentLength]
            seen["body"] = String(buffer: try await request.body.collect(upTo: 1 << 20))
            let body = try JSONSerialization.data(withJSONObject: seen, options: [.sortedKeys])
            return Response(
                status: .created, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        // Kept by the micro-cache for a second, counting how often the service was asked.
        let counted = CallCounter()
        router.get("/v1/catalog/counted") { _, _ in
            Response(
                status: .ok, headers: [HTTPField.Name(ResponseMicroCache.ttlHeader)!: "1000"],
                body: .init(byteBuffer: ByteBuffer(string: "\(counted.next())")))
        }
        // Kept for a second, and marked the same for every customer when asked with `neutral=yes`.
        let offerings = CallCounter()
        router.get("/v1/offerings") { request, _ in
            var headers: HTTPFields = [HTTPField.Name(ResponseMicroCache.ttlHeader)!: "1000"]
            if request.uri.queryParameters["neutral"] == "yes" {
                headers[HTTPField.Name(ResponseMicroCache.customerNeutralHeader)!] = "1"
            }
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "\(offerings.next())")))
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// The headers a request reached the upstream with that say who sent it: `x-*` and `authorization`.
    static func identityHeaders(of request: Request) -> [String: String] {
        var seen: [String: String] = [:]
        for field in request.headers where field.name.canonicalName.hasPrefix("x-") {
            seen[field.name.canonicalName] = field.value
        }
        seen["authorization"] = request.headers[.authorization]
        return seen
    }

    /// Runs `body` with a gateway that remembers keys in front of ``upstream()`` (every route goes to it).
    static func withGatewayBeforeUpstream(_ body: @Sendable @escaping (GatewayHarness) async throws -> Void)
        async throws
    {
        try await upstream().testLive { upstream in
            let url = "http://127.0.0.1:\(upstream.port ?? 0)"
            try await GatewayHarness.run(environment: rememberKeys, upstreamURL: url, body)
        }
    }

    static let bigBody = (0..<(2 * 1024 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 13) }

    @Test func takesBodilessGETsToProxiedPrefixesWithARememberedKeyWithinItsLimit() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Plans")
            let stranger = "pk_" + String(repeating: "a", count: 32)
            // An app in `signed` mode: its public-key customer requests are the router's (the token check).
            let signed = try await gateway.createApp("Signed plans")
            let secret = try await gateway.send(
                .post, "/v1/admin/customer-boundary/secrets", bearer: signed.secretKey.key)
            #expect(secret.status == .created)
            let switched = try await gateway.send(
                .put, "/v1/admin/customer-boundary", bearer: signed.secretKey.key,
                json: try TestJSON.encode(SetCustomerBoundaryRequest(mode: .signed)))
            #expect(switched.status == .ok)
            try await TestDatabase.withClient { client in
                let logger = Logger(label: "test")
                let authenticator = APIKeyAuthenticator(
                    repository: AppPostgresRepository(
                        client: client, box: GatewaySecretBox(masterKey: GatewaySettings.developmentMasterKey),
                        logger: logger),
                    cacheTTL: .seconds(60))
                for key in [app.publicKey.key, app.secretKey.key, stranger, signed.publicKey.key, signed.secretKey.key]
                {
                    _ = try await authenticator.identity(of: key)
                }
                let service = URL(string: "http://127.0.0.1:1")!
                let routes = UpstreamRoute.defaults(
                    catalogURL: service, verifierURL: service, entitlementsURL: service, contentURL: service)
                let proxy = ChannelProxy(
                    routes: RouteTable(routes: routes, keylessPrefixes: ["/v1/notifications", "/v1/downloads"]),
                    authenticator: authenticator, rateLimiter: TokenBucketRateLimiter(),
                    limits: RateLimits(
                        publicKeys: RateLimit(perSecond: 1000, burst: 1000),
                        publicClients: RateLimit(perSecond: 1000, burst: 1000),
                        publicAddresses: RateLimit(perSecond: 1000, burst: 1000),
                        secretKeys: RateLimit(perSecond: 0.001, burst: 2)),
                    clients: ClientAddressResolver(trustedProxies: []),
                    forwarder: Forwarder(
                        pools: UpstreamPools(routes: routes, connectTimeout: .seconds(1), readTimeout: .seconds(1)),
                        cache: ResponseMicroCache(),
                        signature: InternalSignature(secret: TestEnvironment.internalSecret),
                        bufferLimit: 1024, logger: logger),
                    corsEnabled: true)
                let loop = MultiThreadedEventLoopGroup.singleton.any()
                /// "service app-id" of the plan, or `nil` when the request is left to the router.
                func plan(_ method: HTTPRequest.Method, _ path: String, key: String?, _ extra: HTTPFields = [:])
                    async throws -> String?
                {
                    var fields = extra
                    if let key { fields[.authorization] = "Bearer \(key)" }
                    let request = HTTPRequest(
                        method: method, scheme: nil, authority: nil, path: path, headerFields: fields)
                    return try await loop.submit {
                        var connection = ChannelProxy.Connection()
                        return proxy.plan(for: request, on: loop, connection: &connection, peer: nil).map {
                            "\($0.route.service) \($0.identity?.appID ?? "-")"
                        }
                    }.get()
                }
                // What a connection keeps of its key: its next requests with the same key take it, another key (or a
                // revocation through this replica) does not.
                let (publicKey, appID) = (app.publicKey.key, app.info.appID)
                let kept = try await loop.submit {
                    var connection = ChannelProxy.Connection()
                    func plannedApp(_ key: String) -> String? {
                        let request = HTTPRequest(
                            method: .get, scheme: nil, authority: nil, path: "/v1/catalog",
                            headerFields: [.authorization: "Bearer \(key)"])
                        return proxy.plan(for: request, on: loop, connection: &connection, peer: nil)?.identity?.appID
                    }
                    var seen = [plannedApp(publicKey), plannedApp(publicKey), plannedApp(stranger)]
                    seen.append(plannedApp(publicKey))
                    authenticator.invalidateAll()
                    seen.append(plannedApp(publicKey))
                    return seen
                }.get()
                #expect(kept == [appID, appID, nil, appID, nil])
                for key in [app.publicKey.key, app.secretKey.key, stranger, signed.publicKey.key, signed.secretKey.key]
                {
                    _ = try await authenticator.identity(of: key)
                }
                let id = app.info.appID
                let key = app.publicKey.key
                #expect(try await plan(.get, "/v1/catalog?platform=app_store", key: key) == "catalog \(id)")
                #expect(try await plan(.get, "/v1/customers/ann", key: key) == "entitlements \(id)")
                // The most specific prefix wins, as in the router; a GET the API does not document there (the restore is a
                // POST) is left to the router, which answers 405.
                #expect(try await plan(.get, "/v1/customers/ann/restore/x", key: key) == "verifier \(id)")
                #expect(try await plan(.get, "/v1/customers/ann/restore", key: key) == nil)
                #expect(try await plan(.get, "/v1/customers/ann/content", key: key) == "content \(id)")
                // A signed app's public key: the catalog here, anything that names a customer to the router (however
                // the path is spelled); its secret key needs no token.
                let signedID = signed.info.appID
                let signedKey = signed.publicKey.key
                #expect(try await plan(.get, "/v1/catalog?platform=app_store", key: signedKey) == "catalog \(signedID)")
                for path in [
                    "/v1/customers/ann", "/v1/customers/ann/restore", "/v1/customers/ann/content", "//v1/customers/ann",
                    "/v1/content/p?app_user_id=ann", "/v1/purchases",
                ] {
                    #expect(try await plan(.get, path, key: signedKey) == nil, "\(path)")
                }
                #expect(
                    try await plan(.get, "/v1/customers/ann", key: signed.secretKey.key) == "entitlements \(signedID)")
                // Keyless prefixes need no key and carry no identity.
                #expect(try await plan(.get, "/v1/downloads/abc?sig=1", key: nil) == "content -")
                // The app's own writes: a public key's POST with a body of known length within the route's limit.
                let length: HTTPFields = [.contentLength: "4096"]
                #expect(try await plan(.post, "/v1/purchases", key: key, length) == "verifier \(id)")
                #expect(try await plan(.post, "/v1/customers/ann/restore", key: key, length) == "verifier \(id)")
                #expect(try await plan(.post, "/v1/purchases", key: key) == "verifier \(id)")
                // Left to the router: other writes, bodies of unknown or excessive length, a client waiting for
                // `100 Continue`, secret keys (audited), a path with an encoded NUL, a signed app's customer paths.
                #expect(try await plan(.post, "/v1/catalog", key: key) == nil)
                #expect(try await plan(.put, "/v1/customers/ann", key: key, length) == nil)
                #expect(try await plan(.post, "/v1/purchases", key: key, [.transferEncoding: "chunked"]) == nil)
                #expect(try await plan(.post, "/v1/purchases", key: key, [.contentLength: "\(2 << 20)"]) == nil)
                #expect(try await plan(.post, "/v1/purchases", key: key, [.contentLength: "-1"]) == nil)
                #expect(try await plan(.post, "/v1/purchases", key: key, [.expect: "100-continue"]) == nil)
                #expect(try await plan(.post, "/v1/purchases", key: app.secretKey.key, length) == nil)
                #expect(try await plan(.post, "/v1/customers/a%00b/restore", key: key, length) == nil)
                #expect(try await plan(.post, "/v1/purchases", key: signedKey, length) == nil)
                #expect(try await plan(.post, "/v1/notifications/apple", key: nil, length) == nil)
                // Left to the router: bodies of GETs, HEAD, CORS callers, unknown or missing keys, the gateway's own
                // routes, paths no prefix covers.
                #expect(try await plan(.head, "/v1/catalog", key: key) == nil)
                #expect(try await plan(.get, "/v1/catalog", key: key, [.contentLength: "5"]) == nil)
                #expect(try await plan(.get, "/v1/catalog", key: key, [.transferEncoding: "chunked"]) == nil)
                #expect(try await plan(.get, "/v1/catalog", key: key, [.origin: "https://shop.example"]) == nil)
                #expect(try await plan(.get, "/v1/catalog", key: stranger) == nil)
                #expect(try await plan(.get, "/v1/catalog", key: "pk_short") == nil)
                #expect(try await plan(.get, "/v1/catalog", key: nil) == nil)
                #expect(try await plan(.get, "/v1/admin/keys", key: app.secretKey.key) == nil)
                #expect(try await plan(.get, "/health/ready", key: key) == nil)
                #expect(try await plan(.get, "/v1/catalogue", key: key) == nil)
                // Within the key's rate limit only (burst 2): the router renders the 429.
                #expect(try await plan(.get, "/v1/admin/products", key: app.secretKey.key) == "catalog \(id)")
                #expect(try await plan(.get, "/v1/admin/products", key: app.secretKey.key) == "catalog \(id)")
                #expect(try await plan(.get, "/v1/admin/products", key: app.secretKey.key) == nil)
            }
        }
    }

    @Test func answersAsTheRouterWould() async throws {
        try await Self.withGatewayBeforeUpstream { gateway in
            let app = try await gateway.createApp("Channel")
            let forged: HTTPFields = [
                .requestID: "trace-7", HTTPField.Name("x-shopkeeper-app-id")!: "someone-else",
                .ifNoneMatch: "\"stale\"",
            ]
            // The first request reaches the database for the key (the router's path); the rest do not.
            var answers: [[String: String]] = []
            for _ in 0..<3 {
                let response = try await gateway.send(
                    .get, "/v1/catalog/seen?x=1", bearer: app.publicKey.key, headers: forged)
                #expect(response.status == .ok)
                #expect(response.headers[.requestID] == "trace-7")
                #expect(response.headers[.eTag] == "\"seen-1\"")
                answers.append(
                    try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
                        as? [String: String]
                        ?? [:])
            }
            for seen in answers {
                #expect(seen["x-request-id"] == "trace-7")
                #expect(seen["x-shopkeeper-app-id"] == app.info.appID)
                #expect(seen["x-shopkeeper-key-kind"] == "public")
                #expect(seen["x-shopkeeper-signature"] != nil)
                #expect(seen["authorization"] == nil)
                #expect(seen["if-none-match"] == nil)
                #expect(seen["path"] == "/v1/catalog/seen?x=1")
            }
            // If-None-Match is answered by the gateway.
            let unchanged = try await gateway.send(
                .get, "/v1/catalog/seen?x=1", bearer: app.publicKey.key, headers: [.ifNoneMatch: "\"seen-1\""])
            #expect(unchanged.status == .notModified)
            #expect(unchanged.body.readableBytes == 0)
            #expect(unchanged.headers[.requestID] != nil)

            // Larger than the buffer limit: streamed, whole.
            for _ in 0..<2 {
                let big = try await gateway.send(.get, "/v1/catalog/big", bearer: app.publicKey.key)
                #expect(big.status == .ok)
                #expect(big.body.readableBytes == Self.bigBody.count)
                #expect(Array(big.body.readableBytesView) == Self.bigBody)
            }
            // Each remembered key carries its own app.
            let other = try await gateway.createApp("Other")
            let theirs = try await gateway.send(.get, "/v1/catalog/seen", bearer: other.publicKey.key)
            let seen =
                try JSONSerialization.jsonObject(with: Data(theirs.body.readableBytesView)) as? [String: String]
            #expect(seen?["x-shopkeeper-app-id"] == other.info.appID)
        }
    }

    @Test func aWriteIsForwardedWholeAndDropsTheAppsCachedAnswers() async throws {
        try await Self.withGatewayBeforeUpstream { gateway in
            let app = try await gateway.createApp("Writes")
            let key = app.publicKey.key
            // The first request remembers the key (the router's path); the cached GET is the service's first answer.
            #expect(try await gateway.send(.get, "/v1/catalog/counted", bearer: key).status == .ok)
            let first = try await gateway.send(.get, "/v1/catalog/counted", bearer: key)
            #expect(try await gateway.send(.get, "/v1/catalog/counted", bearer: key).body == first.body)

            let payload = String(repeating: "{\"proof\":\"x\"}", count: 400)
            for _ in 0..<2 {
                let written = try await gateway.send(
                    .post, "/v1/catalog/write", bearer: key, json: Data(payload.utf8),
                    headers: [.requestID: "write-1", HTTPField.Name("x-shopkeeper-app-id")!: "someone-else"])
                #expect(written.status == .created)
                #expect(written.headers[.requestID] == "write-1")
                let seen = try #require(
                    try JSONSerialization.jsonObject(with: Data(written.body.readableBytesView))
                        as? [String: String])
                #expect(seen["body"] == payload)
                #expect(seen["content-length"] == "\(payload.utf8.count)")
                #expect(seen["x-shopkeeper-app-id"] == app.info.appID)
                #expect(seen["x-shopkeeper-key-kind"] == "public")
                #expect(seen["x-shopkeeper-signature"] != nil)
                #expect(seen["x-request-id"] == "write-1")
                #expect(seen["authorization"] == nil)
            }
            // The write dropped the app's cached answers: the next GET asks the service again.
            let after = try await gateway.send(.get, "/v1/catalog/counted", bearer: key)
            #expect(after.status == .ok)
            #expect(after.body != first.body)
            // A body over the limit is refused as on the router's path, before anything is forwarded.
            let tooLarge = try await gateway.send(
                .post, "/v1/catalog/write", bearer: key, json: Data(repeating: 0x20, count: (1 << 20) + 1))
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.headers[.contentType] == "application/problem+json")
        }
    }

    @Test func aDeadOrSlowServiceGivesTheSameProblemsOnBothPaths() async throws {
        try await GatewayHarness.run(environment: Self.rememberKeys, upstreamURL: "http://127.0.0.1:9") { gateway in
            let app = try await gateway.createApp("Dead")
            for _ in 0..<2 {
                let response = try await gateway.send(
                    .get, "/v1/catalog", bearer: app.publicKey.key, headers: [.requestID: "dead-1"])
                #expect(response.status == .badGateway)
                #expect(response.headers[.contentType] == "application/problem+json")
                let problem = try TestJSON.object(response.body.readableBytesView)
                #expect(problem["code"] as? String == "upstream_unavailable")
                #expect(problem["request_id"] as? String == "dead-1")
            }
            // A write too (on the channel path once the key is remembered).
            let written = try await gateway.send(
                .post, "/v1/purchases", bearer: app.publicKey.key, json: Data(#"{"proof":{}}"#.utf8),
                headers: [.requestID: "dead-2"])
            #expect(written.status == .badGateway)
            #expect(written.headers[.contentType] == "application/problem+json")
            #expect(try TestJSON.object(written.body.readableBytesView)["request_id"] as? String == "dead-2")
        }
        let router = Router()
        router.get("/v1/catalog") { _, _ -> String in
            try await Task.sleep(for: .seconds(5))
            return "late"
        }
        let slow = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await slow.testLive { slowClient in
            let environment = Self.rememberKeys.merging(["SHOPKEEPER_UPSTREAM_READ_TIMEOUT_MS": "300"]) { $1 }
            try await GatewayHarness.run(
                environment: environment, upstreamURL: "http://127.0.0.1:\(slowClient.port ?? 0)"
            ) { gateway in
                let app = try await gateway.createApp("Slow")
                for _ in 0..<2 {
                    let started = ContinuousClock.now
                    let response = try await gateway.send(.get, "/v1/catalog", bearer: app.publicKey.key)
                    #expect(response.status == .gatewayTimeout)
                    #expect(try code(response) == "upstream_timeout")
                    #expect(ContinuousClock.now - started < .seconds(3))
                }
            }
        }
    }

    @Test func pipelinedRequestsOfBothPathsAreAnsweredInOrder() async throws {
        try await Self.withGatewayBeforeUpstream { gateway in
            let app = try await gateway.createApp("Pipelined")
            let key = app.publicKey.key
            #expect(try await gateway.send(.get, "/v1/catalog/small/0", bearer: key).status == .ok)
            func get(_ n: Int) -> String {
                "GET /v1/catalog/small/\(n) HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer \(key)\r\n\r\n"
            }
            let chunked =
                "POST /v1/catalog/echo HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer \(key)\r\n"
                + "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            let sized =
                "POST /v1/catalog/echo HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer \(key)\r\n"
                + "Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nthere"
            // Channel, router, channel, channel (a write), channel, router, channel: all written at once.
            let text = get(1) + chunked + get(2) + sized + get(3) + chunked + get(4)
            let bodies = try await RawHTTP.exchange(port: gateway.client.port ?? 0, text, responses: 7)
            #expect(bodies == ["small 1", "hello", "small 2", "there", "small 3", "hello", "small 4"])
        }
    }
}

/// Counts the calls of a test upstream.
final class CallCounter: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
