import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ShopkeeperTestSupport
import Testing

/// The proxy path with a purpose-built upstream: large streamed bodies both ways, HEAD, and many requests at once
/// over the pooled connections.
@Suite struct ProxyStreamingTests {
    static let bigSize = 3 * 1024 * 1024

    static func upstream() -> Application<RouterResponder<BasicRequestContext>> {
        let router = Router()
        let big = ByteBuffer(bytes: (0..<bigSize).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        router.get("/v1/catalog/big") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: .init(byteBuffer: big))
        }
        router.head("/v1/catalog/big") { _, _ in
            Response(status: .ok, headers: [.contentLength: String(bigSize)], body: .init())
        }
        router.get("/v1/catalog/small/:n") { _, context in
            "small \(try context.parameters.require("n"))"
        }
        router.post("/v1/catalog/echo") { request, _ in
            var hasher = SHA256()
            var count = 0
            for try await buffer in request.body {
                count += buffer.readableBytes
                hasher.update(data: Data(buffer.readableBytesView))
            }
            return "\(count) \(hasher.finalize().map { String(format: "%02x", $0) }.joined())"
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    @Test func streamsLargeBodiesBothWaysAndAnswersHead() async throws {
        try await Self.upstream().testLive { upstream in
            let url = "http://127.0.0.1:\(upstream.port ?? 0)"
            try await GatewayHarness.run(environment: ["SHOPKEEPER_MAX_BODY_BYTES": "8388608"], upstreamURL: url) {
                gateway in
                let app = try await gateway.createApp("Stream")
                let key = app.secretKey.key

                let big = try await gateway.send(.get, "/v1/catalog/big", bearer: key)
                #expect(big.status == .ok)
                #expect(big.body.readableBytes == Self.bigSize)
                #expect(big.body.getBytes(at: 1000, length: 1)?.first == UInt8(truncatingIfNeeded: 1000 &* 31))

                let head = try await gateway.send(.head, "/v1/catalog/big", bearer: key)
                #expect(head.status == .ok)
                #expect(head.headers[.contentLength] == String(Self.bigSize))
                #expect(head.body.readableBytes == 0)
                // The connection that carried the HEAD is still usable.
                #expect(
                    String(buffer: try await gateway.send(.get, "/v1/catalog/small/1", bearer: key).body) == "small 1")

                let upload = Data((0..<(5 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
                let echoed = try await gateway.send(.post, "/v1/catalog/echo", bearer: key, json: upload)
                let expected = SHA256.hash(data: upload).map { String(format: "%02x", $0) }.joined()
                #expect(String(buffer: echoed.body) == "\(upload.count) \(expected)")
            }
        }
    }

    /// A body of unknown length (chunked) is the router's to forward: streamed to the service as it arrives within the
    /// route's limit, refused with 413 once it passes it.
    @Test func chunkedUploadsStreamWithinTheBodyLimit() async throws {
        try await Self.upstream().testLive { upstream in
            let url = "http://127.0.0.1:\(upstream.port ?? 0)"
            try await GatewayHarness.run(environment: ["SHOPKEEPER_MAX_BODY_BYTES": "4194304"], upstreamURL: url) {
                gateway in
                let app = try await gateway.createApp("Chunked")
                let upload = Data((0..<(3 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 13) })
                let parts = stride(from: 0, to: upload.count, by: 64 * 1024).map {
                    ByteBuffer(bytes: upload[$0..<min($0 + 64 * 1024, upload.count)])
                }
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(gateway.client.port ?? 0)/v1/catalog/echo")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(app.secretKey.key)")
                request.body = .stream(
                    AsyncStream(ByteBuffer.self) { continuation in
                        for part in parts { continuation.yield(part) }
                        continuation.finish()
                    }, length: .unknown)
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
                let echoed = try await response.body.collect(upTo: 1024)
                let expected = SHA256.hash(data: upload).map { String(format: "%02x", $0) }.joined()
                #expect(response.status == .ok)
                #expect(String(buffer: echoed) == "\(upload.count) \(expected)")

                let chunk = String(repeating: "x", count: 1 << 20)
                let tooLarge =
                    "POST /v1/catalog/echo HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer \(app.secretKey.key)\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n"
                    + String(repeating: "100000\r\n\(chunk)\r\n", count: 5) + "0\r\n\r\n"
                let refused = try await RawHTTP.exchange(port: gateway.client.port ?? 0, tooLarge, responses: 1)
                #expect(refused.count == 1 && refused.first?.contains("body_too_large") == true, "\(refused)")
                // The service's connections are fine afterwards.
                let small = try await gateway.send(.get, "/v1/catalog/small/1", bearer: app.secretKey.key)
                #expect(String(buffer: small.body) == "small 1")
            }
        }
    }

    @Test func manyConcurrentRequestsShareThePool() async throws {
        try await Self.upstream().testLive { upstream in
            let url = "http://127.0.0.1:\(upstream.port ?? 0)"
            try await GatewayHarness.run(upstreamURL: url) { gateway in
                let app = try await gateway.createApp("Concurrent")
                let base = "http://127.0.0.1:\(gateway.client.port ?? 0)"
                let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            var request = HTTPClientRequest(url: "\(base)/v1/catalog/small/\(index)")
                            request.headers.add(name: "Authorization", value: "Bearer \(app.publicKey.key)")
                            // A deadline against a hang only: 200 requests share the test process's client with
                            // every suite running at once.
                            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(90))
                            let body = try await response.body.collect(upTo: 1024)
                            return response.status == .ok && String(buffer: body) == "small \(index)"
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(results.count == 200)
                #expect(results.allSatisfy { $0 })
            }
        }
    }
}
