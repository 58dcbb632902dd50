import Foundation
import NIOCore
import NIOPosix

/// Writes raw bytes to a server and reads `responses` responses with a `Content-Length` back, in order: for
/// pipelined requests, which HTTP clients do not send.
package enum RawHTTP {
    /// The bodies of the first `responses` responses to `text` (as text; fewer when 10 s pass first).
    package static func exchange(port: Int, _ text: String, responses: Int) async throws -> [String] {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: text))
            var received = ByteBuffer()
            var bodies: [String] = []
            let deadline = ContinuousClock.now + .seconds(10)
            for try await var chunk in inbound {
                received.writeBuffer(&chunk)
                while let body = parse(&received) { bodies.append(body) }
                if bodies.count >= responses || ContinuousClock.now > deadline { break }
            }
            return bodies
        }
    }

    private static let headEnd: [UInt8] = Array("\r\n\r\n".utf8)

    /// The body of the first complete response in `buffer` (consumed), or `nil` when it is not all there yet.
    private static func parse(_ buffer: inout ByteBuffer) -> String? {
        let bytes = buffer.readableBytesView
        guard let end = bytes.firstRange(of: headEnd) else { return nil }
        let headBytes = bytes.distance(from: bytes.startIndex, to: end.upperBound)
        let head = String(decoding: bytes[bytes.startIndex..<end.lowerBound], as: UTF8.self).lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return nil }
        guard buffer.readableBytes >= headBytes + length else { return nil }
        buffer.moveReaderIndex(forwardBy: headBytes)
        return buffer.readString(length: length)
    }
}
