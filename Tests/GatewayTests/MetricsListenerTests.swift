import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import Prometheus
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// The gateway's metrics are on a listener of its own, inside the network; the public port answers `/metrics` as it
/// answers any path it does not have.
@Suite struct MetricsListenerTests {
    @Test(arguments: ["0", "60"])
    func metricsAreServedOnTheInternalListenerOnly(keyCacheSeconds: String) async throws {
        let registry = PrometheusCollectorRegistry()
        registry.makeCounter(name: "shopkeeper_test_marker_total").increment()
        let metricsPort = NIOLockedValueBox<Int?>(nil)
        let hooks = GatewayHooks(metricsListening: { port in metricsPort.withLockedValue { $0 = port } })
        try await GatewayHarness.run(
            environment: ["SHOPKEEPER_KEY_CACHE_SECONDS": keyCacheSeconds], metrics: registry, hooks: hooks
        ) { gateway in
            let app = try await gateway.createApp("Metrics")
            let port = try #require(gateway.client.port)
            // With a key or without, remembered or not (the channel path), from the router or below it.
            for bearer in [nil, app.publicKey.key, app.publicKey.key, app.secretKey.key] {
                var headers: HTTPFields = [:]
                if let bearer { headers[.authorization] = "Bearer \(bearer)" }
                let answer = try await ConcurrentHTTP.send(port: port, .get, "/metrics", headers: headers)
                #expect(answer.status == .notFound)
                #expect(answer.headers[.contentType] == "application/problem+json")
                #expect(try TestJSON.object(answer.body.readableBytesView)["code"] as? String == "not_found")
                #expect(!String(buffer: answer.body).contains("shopkeeper_test_marker_total"))
            }
            // Not a path of the API at all: no 405 with an Allow naming GET either.
            let posted = try await ConcurrentHTTP.send(
                port: port, .post, "/metrics", headers: [:], body: Data("{}".utf8))
            #expect(posted.status == .notFound)
            try await eventually("the metrics listener listens") { metricsPort.withLockedValue { $0 } != nil }
            let internalPort = try #require(metricsPort.withLockedValue { $0 })
            #expect(internalPort != port)
            let metrics = try await ConcurrentHTTP.send(port: internalPort, .get, "/metrics", headers: [:])
            #expect(metrics.status == .ok)
            #expect(metrics.headers[.contentType] == "text/plain; version=0.0.4")
            #expect(String(buffer: metrics.body).contains("shopkeeper_test_marker_total 1"))
        }
    }
}
