import Foundation
import NIOCore
import NIOPosix
import ShopkeeperTestSupport

/// A client whose connections come from a loopback address of its choosing (`127.0.0.2`, `127.0.0.3`, ...: Linux
/// routes all of 127.0.0.0/8 to the loopback interface), so one test can play several callers the gateway tells apart
/// by address, as it does distinct devices on the internet.
struct LoopbackClient: Sendable {
    /// The address connections come from.
    var address: String

    struct Answer: Sendable {
        var status: Int
        /// Header names in lowercase.
        var headers: [String: String]
        var body: String
    }

    /// Sends `GET path` to `127.0.0.1:port` over a new connection (closed after the answer) and reads the answer.
    func get(port: Int, _ path: String, headers: [(String, String)] = []) async throws -> Answer {
        try await send(port: port, "GET", path, headers: headers)
    }

    /// Sends `method path` with `body` to `127.0.0.1:port`, with `host` as its `Host` header (the address by
    /// default), over a new connection, and reads the answer.
    func send(
        port: Int, _ method: String, _ path: String, host: String? = nil, headers: [(String, String)] = [],
        body: String = ""
    ) async throws -> Answer {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(to: try SocketAddress(ipAddress: address, port: 0))
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let length = body.isEmpty && method == "GET" ? "" : "Content-Length: \(body.utf8.count)\r\n"
        let request =
            "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n" + length
            + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n" + body
        let received = try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request))
            var received = ""
            for try await chunk in inbound {
                received += String(buffer: chunk)
                // Complete once the body is all there (the channel path may keep the connection open).
                if (try? Self.parse(received, complete: true)) != nil { break }
            }
            return received
        }
        return try Self.parse(received)
    }

    struct Malformed: Error, CustomStringConvertible {
        var text: String
        var description: String { "not an HTTP response: \(text.prefix(200))" }
    }

    /// The answer in `text`; with `complete`, only when its body is all there (by `Content-Length` or the last
    /// chunk), else it throws.
    private static func parse(_ text: String, complete: Bool = false) throws -> Answer {
        guard let headEnd = text.range(of: "\r\n\r\n") else { throw Malformed(text: text) }
        let lines = text[..<headEnd.lowerBound].components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Malformed(text: text) }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = String(text[headEnd.upperBound...])
        let chunked = headers["transfer-encoding"]?.lowercased() == "chunked"
        if complete {
            let length = headers["content-length"].flatMap(Int.init)
            let done = chunked ? body.hasSuffix("0\r\n\r\n") : length.map { body.utf8.count >= $0 } ?? false
            guard done else { throw Malformed(text: text) }
        }
        if chunked { body = dechunked(body) }
        return Answer(status: status, headers: headers, body: body)
    }

    /// The payload of a chunked body (chunk sizes in hex, each line ended by CRLF).
    private static func dechunked(_ body: String) -> String {
        var rest = Substring(body)
        var payload = ""
        while let lineEnd = rest.range(of: "\r\n"), let size = Int(rest[..<lineEnd.lowerBound], radix: 16), size > 0 {
            let start = lineEnd.upperBound
            let end = rest.utf8.index(start, offsetBy: size, limitedBy: rest.endIndex) ?? rest.endIndex
            payload += rest[start..<end]
            rest = rest[end...].dropFirst(2)
        }
        return payload
    }
}

extension LoopbackClient.Answer {
    /// The `code` of a problem answer.
    var problemCode: String? {
        get throws { try TestJSON.object(Data(body.utf8))["code"] as? String }
    }
}
