import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite struct ProxyTests {
    @Test func requestIDsTravelToTheServiceAndBack() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Trace")
            let response = try await gateway.send(
                .get, "/v1/admin/products/none", bearer: app.secretKey.key, headers: [.requestID: "trace-42"]
            )
            #expect(response.status == .notFound)
            #expect(response.headers[.requestID] == "trace-42")
            // The problem was rendered by the catalog service, which saw the same id.
            let problem = try TestJSON.object(response.body.readableBytesView)
            #expect(problem["code"] as? String == "product_not_found")
            #expect(problem["request_id"] as? String == "trace-42")

            let generated = try await gateway.send(.get, "/v1/admin/products/none", bearer: app.secretKey.key)
            let id = try #require(generated.headers[.requestID])
            #expect(try TestJSON.object(generated.body.readableBytesView)["request_id"] as? String == id)
        }
    }

    @Test func rateLimitsAnswer429WithRetryAfter() async throws {
        let environment = ["SHOPKEEPER_RATE_LIMIT_PUBLIC": "0.01/3", "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT": "0.01/3"]
        try await GatewayHarness.run(environment: environment) { gateway in
            let app = try await gateway.createApp("Limited")
            let other = try await gateway.createApp("Other")
            let path = "/v1/catalog?platform=app_store&app_version=1.0"
            for _ in 0..<3 {
                #expect(try await gateway.send(.get, path, bearer: app.publicKey.key).status == .ok)
            }
            let limited = try await gateway.send(.get, path, bearer: app.publicKey.key)
            #expect(limited.status == .tooManyRequests)
            #expect(try code(limited) == "rate_limited")
            let retryAfter = try #require(limited.headers[.retryAfter].flatMap(Int.init))
            #expect(retryAfter >= 1)
            // Buckets are per key: other keys are unaffected.
            #expect(try await gateway.send(.get, path, bearer: other.publicKey.key).status == .ok)
            #expect(try await gateway.send(.get, path, bearer: app.secretKey.key).status == .ok)
        }
    }

    @Test func deadUpstreamGives502AndNotReady() async throws {
        try await GatewayHarness.run(upstreamURL: "http://127.0.0.1:9") { gateway in
            let app = try await gateway.createApp("Dead")
            let started = ContinuousClock.now
            let response = try await gateway.send(
                .get, "/v1/catalog?platform=app_store&app_version=1.0", bearer: app.publicKey.key)
            #expect(response.status == .badGateway)
            #expect(try code(response) == "upstream_unavailable")
            #expect(ContinuousClock.now - started < .seconds(5))
            let ready = try await gateway.client.execute(uri: "/health/ready", method: .get)
            #expect(ready.status == .serviceUnavailable)
            let report = try TestJSON.object(ready.body.readableBytesView)
            let checks = report["checks"] as? [String: String] ?? [:]
            #expect(checks["database"] == "ok")
            #expect(checks["catalog"]?.hasPrefix("failing") == true)
        }
    }

    @Test func slowUpstreamGives504() async throws {
        let router = Router()
        router.get("/v1/catalog") { _, _ -> String in
            try await Task.sleep(for: .seconds(5))
            return "late"
        }
        let slow = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await slow.testLive { slowClient in
            let url = "http://127.0.0.1:\(slowClient.port ?? 0)"
            try await GatewayHarness.run(environment: ["SHOPKEEPER_UPSTREAM_READ_TIMEOUT_MS": "300"], upstreamURL: url)
            { gateway in
                let app = try await gateway.createApp("Slow")
                let started = ContinuousClock.now
                let response = try await gateway.send(.get, "/v1/catalog", bearer: app.publicKey.key)
                #expect(response.status == .gatewayTimeout)
                #expect(try code(response) == "upstream_timeout")
                #expect(ContinuousClock.now - started < .seconds(3))
            }
        }
    }

    @Test func oversizedBodiesStopAtTheGateway() async throws {
        try await GatewayHarness.run(environment: ["SHOPKEEPER_MAX_BODY_BYTES": "4096"]) { gateway in
            let app = try await gateway.createApp("Big")
            var big = product("big")
            big.localizations["en"]?.description = String(repeating: "x", count: 8000)
            let response = try await gateway.send(
                .post, "/v1/admin/products", bearer: app.secretKey.key, json: try TestJSON.encode(big))
            #expect(response.status == .contentTooLarge)
            #expect(try code(response) == "body_too_large")
            #expect(
                try await gateway.send(.get, "/v1/admin/products/big", bearer: app.secretKey.key).status == .notFound)
        }
    }

    @Test func corsForConfiguredOriginsOnly() async throws {
        try await GatewayHarness.run(environment: ["SHOPKEEPER_CORS_ORIGINS": "https://shop.example.com"]) { gateway in
            let app = try await gateway.createApp("Web")
            let preflight = try await gateway.client.execute(
                uri: "/v1/catalog",
                method: .options,
                headers: [.origin: "https://shop.example.com", .accessControlRequestMethod: "GET"]
            )
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == "https://shop.example.com")
            #expect(preflight.headers[.accessControlAllowHeaders]?.contains("Authorization") == true)
            // A signed app's browser client sends its customer token.
            #expect(preflight.headers[.accessControlAllowHeaders]?.contains("Shopkeeper-Customer-Token") == true)

            let allowed = try await gateway.send(
                .get, "/v1/catalog?platform=app_store&app_version=1.0", bearer: app.publicKey.key,
                headers: [.origin: "https://shop.example.com"]
            )
            #expect(allowed.headers[.accessControlAllowOrigin] == "https://shop.example.com")
            #expect(allowed.headers[.accessControlExposeHeaders]?.contains("ETag") == true)

            let foreign = try await gateway.send(
                .get, "/v1/catalog?platform=app_store&app_version=1.0", bearer: app.publicKey.key,
                headers: [.origin: "https://evil.example.com"]
            )
            #expect(foreign.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test func notModifiedPassesThrough() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Etag")
            #expect(try await gateway.importCatalog([product("x")], for: app).status == .ok)
            let path = "/v1/catalog?platform=app_store&app_version=1.0"
            let first = try await gateway.send(.get, path, bearer: app.publicKey.key)
            let etag = try #require(first.headers[.eTag])
            let second = try await gateway.send(.get, path, bearer: app.publicKey.key, headers: [.ifNoneMatch: etag])
            #expect(second.status == .notModified)
            #expect(second.headers[.eTag] == etag)
        }
    }

    /// The gateway keeps catalog responses briefly, per app; a write through it shows at once.
    @Test func cachedCatalogStaysPerAppAndFollowsWrites() async throws {
        try await GatewayHarness.run { gateway in
            let a = try await gateway.createApp("Cache A")
            let b = try await gateway.createApp("Cache B")
            #expect(try await gateway.importCatalog([product("a1")], for: a).status == .ok)
            #expect(try await gateway.importCatalog([product("b1")], for: b).status == .ok)
            for _ in 0..<3 {
                #expect(try await gateway.catalogIDs(bearer: a.publicKey.key) == ["a1"])
                #expect(try await gateway.catalogIDs(bearer: b.publicKey.key) == ["b1"])
            }
            #expect(try await gateway.importCatalog([product("a1"), product("a2")], for: a).status == .ok)
            #expect(try await gateway.catalogIDs(bearer: a.publicKey.key) == ["a1", "a2"])
            #expect(try await gateway.catalogIDs(bearer: b.publicKey.key) == ["b1"])

            let path = "/v1/catalog?platform=app_store&app_version=1.0"
            let first = try await gateway.send(.get, path, bearer: a.publicKey.key)
            let etag = try #require(first.headers[.eTag])
            #expect(first.headers[HTTPField.Name("x-shopkeeper-cache-ttl-ms")!] == nil)
            let cached = try await gateway.send(.get, path, bearer: a.publicKey.key, headers: [.ifNoneMatch: etag])
            #expect(cached.status == .notModified)
            #expect(cached.body.readableBytes == 0)
            // Another app's key with the same tag gets its own catalog, not a 304 for someone else's.
            let other = try await gateway.send(.get, path, bearer: b.publicKey.key, headers: [.ifNoneMatch: etag])
            #expect(other.status == .ok)
        }
    }
}

/// Customer info may be answered by the gateway from memory for a moment, but never after a write for the app went
/// through the same gateway.
@Suite struct CustomerInfoThroughTheGatewayTests {
    @Test func aWriteThroughTheGatewayIsReadBackAtOnce() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Customers")
            let path = "/v1/customers/reader"
            let first = try await gateway.send(.get, path, bearer: app.publicKey.key)
            #expect(first.status == .ok)
            #expect(first.headers[HTTPField.Name("x-shopkeeper-cache-ttl-ms")!] == nil)
            let cached = try await gateway.send(.get, path, bearer: app.publicKey.key)
            #expect(String(buffer: cached.body) == String(buffer: first.body))

            let grant = try await gateway.send(
                .post, "\(path)/grants", bearer: app.secretKey.key,
                json: Data(#"{"entitlement_id":"vip","expires_at":"2099-01-01T00:00:00Z"}"#.utf8))
            #expect(grant.status == .created, "\(String(buffer: grant.body))")
            let after = try await gateway.send(.get, path, bearer: app.publicKey.key)
            let info = try TestJSON.decode(CustomerInfo.self, after.body.readableBytesView)
            #expect(info.entitlements["vip"]?.active == true)
            #expect(after.headers[.eTag] != first.headers[.eTag])
        }
    }
}
