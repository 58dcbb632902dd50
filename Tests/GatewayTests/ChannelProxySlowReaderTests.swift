import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import ShopkeeperTestSupport
import Testing

/// A client that reads a streamed response slowly makes the forwarder stop reading the service's connection
/// (`autoRead` off) until the client can take more, whichever way in the request took (the connection pipeline, or
/// the router, here for a CORS origin). The connection goes back to the pool when the response ends: reading must be
/// on again then, or the next request on it waits for bytes that are never read, until the read timeout (seen as 504s
/// after large report exports).
@Suite struct ChannelProxySlowReaderTests {
    static let hugeSize = 24 * 1024 * 1024

    static func upstream() -> Application<RouterResponder<BasicRequestContext>> {
        let router = Router()
        let huge = ByteBuffer(repeating: UInt8(ascii: "x"), count: hugeSize)
        router.get("/v1/catalog/huge") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: .init(byteBuffer: huge))
        }
        router.get("/v1/catalog/small/:n") { _, context in
            "small \(try context.parameters.require("n"))"
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    @Test(arguments: [false, true])
    func theServiceConnectionOfASlowlyReadStreamIsReadableWhenReused(throughTheRouter: Bool) async throws {
        let origin = "https://shop.example.com"
        let environment = [
            "SHOPKEEPER_KEY_CACHE_SECONDS": "60", "SHOPKEEPER_UPSTREAM_READ_TIMEOUT_MS": "3000",
            "SHOPKEEPER_CORS_ORIGINS": throughTheRouter ? origin : "",
        ]
        try await Self.upstream().testLive { upstream in
            try await GatewayHarness.run(
                environment: environment, upstreamURL: "http://127.0.0.1:\(upstream.port ?? 0)"
            ) { gateway in
                let key = try await gateway.createApp("Slow reader").publicKey.key
                // Remembered: the next GETs take the channel path (unless they come from a CORS origin).
                #expect(try await gateway.send(.get, "/v1/catalog/small/0", bearer: key).status == .ok)
                let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connect(host: "127.0.0.1", port: gateway.client.port ?? 0) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                                wrappingChannelSynchronously: channel,
                                configuration: .init(backPressureStrategy: .init(lowWatermark: 1, highWatermark: 2)))
                        }
                    }
                try await client.executeThenClose { inbound, outbound in
                    var reader = inbound.makeAsyncIterator()
                    var pending = ByteBuffer()
                    func get(_ path: String) async throws {
                        let from = throughTheRouter ? "Origin: \(origin)\r\n" : ""
                        try await outbound.write(
                            ByteBuffer(
                                string:
                                    "GET \(path) HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer \(key)\r\n\(from)\r\n"))
                    }
                    /// The next response's status and body length, read `slowly` (a pause after each chunk).
                    func response(slowly: Bool) async throws -> (String, Int) {
                        while true {
                            if let (status, length) = Self.response(in: &pending) { return (status, length) }
                            guard var chunk = try await reader.next() else { return ("closed", 0) }
                            pending.writeBuffer(&chunk)
                            if slowly { try await Task.sleep(for: .milliseconds(2)) }
                        }
                    }
                    for round in 1...3 {
                        try await get("/v1/catalog/huge")
                        let (status, length) = try await response(slowly: true)
                        #expect(status == "200" && length == Self.hugeSize, "round \(round)")
                        // The same client connection, so the same event loop and the same pooled service connection.
                        try await get("/v1/catalog/small/\(round)")
                        let (next, _) = try await response(slowly: false)
                        #expect(next == "200", "round \(round): the reused service connection did not answer")
                    }
                }
            }
        }
    }

    /// Takes one whole response with a `Content-Length` off `buffer`: its status and body length.
    static func response(in buffer: inout ByteBuffer) -> (String, Int)? {
        let bytes = buffer.readableBytesView
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: bytes[bytes.startIndex..<end.lowerBound], as: UTF8.self).lowercased()
        let lines = head.split(separator: "\r\n")
        let status = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "?"
        let length =
            lines.first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        let headLength = bytes.distance(from: bytes.startIndex, to: end.upperBound)
        guard buffer.readableBytes >= headLength + length else { return nil }
        buffer.moveReaderIndex(forwardBy: headLength + length)
        return (status, length)
    }
}
