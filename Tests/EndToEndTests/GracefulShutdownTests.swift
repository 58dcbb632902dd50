import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// SIGTERM lets requests in flight finish before the process exits.
@Suite struct GracefulShutdownTests {
    static let operatorKey = "op_shutdown_operator_key_012345"

    @Test func inFlightRequestsFinishAfterSIGTERM() async throws {
        let router = Router()
        router.get("/v1/catalog/slow") { _, _ -> String in
            try await Task.sleep(for: .milliseconds(1500))
            return "finished"
        }
        router.post("/v1/catalog/slow") { _, _ -> String in
            try await Task.sleep(for: .milliseconds(1500))
            return "finished too"
        }
        try await Self.withGateway(before: router) { gateway, key in
            // Metrics are on the internal listener only; the public port answers as for any unknown path.
            let metrics = try await gateway.get("/metrics", port: gateway.metricsPort)
            #expect(metrics.status == .ok)
            #expect(String(decoding: metrics.body, as: UTF8.self).contains("# TYPE"))
            let publicMetrics = try await gateway.get("/metrics")
            #expect(publicMetrics.status == .notFound)
            #expect(try TestJSON.object(publicMetrics.body)["code"] as? String == "not_found")

            // The key is now remembered: the GET is answered by the channel path, the POST by the router.
            let auth = [("Authorization", "Bearer \(key)")]
            #expect(try await gateway.get("/v1/catalog/quick", headers: auth).status == .ok)
            async let slow = gateway.get("/v1/catalog/slow", headers: auth)
            async let slowPost = gateway.post("/v1/catalog/slow", json: Data("{}".utf8), headers: auth)
            try await Task.sleep(for: .milliseconds(400))
            let started = ContinuousClock.now
            let exit = Task { try await gateway.terminate(timeout: .seconds(10)) }
            let response = try await slow
            #expect(response.status == .ok)
            #expect(String(decoding: response.body, as: UTF8.self) == "finished")
            let posted = try await slowPost
            #expect(posted.status == .ok)
            #expect(String(decoding: posted.body, as: UTF8.self) == "finished too")
            #expect(try await exit.value == 0)
            #expect(ContinuousClock.now - started < .seconds(8))
        }
    }

    @Test func aShutdownThatOverrunsItsGraceIsCancelledAndTheProcessExits() async throws {
        let router = Router()
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        // Answers long after the gateway's grace (the test waits for it only at the end, when the upstream stops).
        router.get("/v1/catalog/stuck") { _, _ -> String in
            arrived.yield()
            try await Task.sleep(for: .seconds(8))
            return "too late"
        }
        try await Self.withGateway(before: router, environment: ["SHOPKEEPER_SHUTDOWN_GRACE_SECONDS": "1"]) {
            gateway, key in
            let auth = [("Authorization", "Bearer \(key)")]
            #expect(try await gateway.get("/v1/catalog/quick", headers: auth).status == .ok)
            let stuck = Task { try await gateway.get("/v1/catalog/stuck", headers: auth) }
            // Once the request reached the upstream, it is in flight at the gateway.
            var iterator = arrivals.makeAsyncIterator()
            _ = await iterator.next()
            let started = ContinuousClock.now
            let status = try await gateway.terminate(timeout: .seconds(7))
            #expect(ContinuousClock.now - started < .seconds(7))
            #expect(status == 0, "\(gateway.logTail())")
            #expect(gateway.logTail().contains("graceful shutdown took longer than"), "\(gateway.logTail())")
            _ = await stuck.result
        }
    }

    /// Runs `body` with a gateway process on a fresh database, routing `/v1/catalog` to a live `router` (given
    /// `/health/ready` and `/v1/catalog/quick` here), and a public key of an app it knows.
    static func withGateway(
        before router: Router<BasicRequestContext>, environment: [String: String] = [:],
        _ body: @Sendable @escaping (ServiceProcess, String) async throws -> Void
    ) async throws {
        router.get("/v1/catalog/quick") { _, _ in "quick" }
        router.get("/health/ready") { _, _ in "ok" }
        let upstream = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await upstream.testLive { upstreamClient in
            try await TestDatabase.withFreshDatabase { database in
                let gateway = try ServiceProcess(
                    "shopkeeper-gateway",
                    environment: [
                        "DATABASE_URL": database.url,
                        "SHOPKEEPER_INTERNAL_SECRET": TestEnvironment.internalSecret,
                        "SHOPKEEPER_OPERATOR_KEY": Self.operatorKey,
                        "SHOPKEEPER_GATEWAY_ROUTES": "/v1/catalog=catalog@http://127.0.0.1:\(upstreamClient.port ?? 0)",
                    ].merging(environment) { _, given in given }
                )
                try await gateway.waitUntilReady()
                try await body(gateway, try await Self.publicKey(gateway: gateway))
            }
        }
    }

    static func publicKey(gateway: ServiceProcess) async throws -> String {
        func post<T: Decodable>(_ path: String, _ body: some Encodable, as: T.Type) async throws -> T {
            var request = HTTPClientRequest(url: gateway.baseURL + path)
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(operatorKey)")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try TestJSON.encode(body)))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            return try TestJSON.decode(T.self, try await response.body.collect(upTo: 1 << 20).readableBytesView)
        }
        let app = try await post("/operator/v1/apps", CreateAppRequest(name: "Shutdown"), as: AppInfo.self)
        return try await post(
            "/operator/v1/apps/\(app.appID)/keys", CreateKeyRequest(kind: .public), as: CreatedAPIKey.self
        ).key
    }
}
