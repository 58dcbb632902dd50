import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShopkeeperCore

/// What one delivery attempt came to.
enum WebhookAttemptResult: Sendable, Equatable {
    /// The receiver answered 2xx.
    case delivered(status: Int)
    /// Any other answer (`status`), or no answer at all (`status` is `nil`): timeout, refused connection, TLS.
    case failed(status: Int?, error: String)
}

/// Makes one webhook request: a signed `POST` of the event, with a deadline, no redirects, and at most
/// ``responseLimit`` bytes of the answer read.
struct WebhookSender: Sendable {
    let client: HTTPClient
    let timeout: Duration
    /// How much of a receiver's answer is read (its start is kept in `last_error` for a failure).
    static let responseLimit = 4096
    /// How much of a failed answer's body is kept in `last_error`.
    static let errorExcerpt = 200
    /// Identifies the sender to receivers.
    static let userAgent = "Shopkeeper-Webhooks/1"

    /// The client configuration the dispatcher's `HTTPClient` must have: redirects are never followed (a 3xx
    /// is a failed attempt), and connecting or waiting for bytes takes at most `timeout`.
    static func configuration(timeout: Duration) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let amount = TimeAmount.milliseconds(timeout.milliseconds)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: amount, read: amount)
        configuration.decompression = .disabled
        return configuration
    }

    /// Sends `delivery` to `url`, signed with `secret` at `now`.
    func send(_ delivery: ClaimedDelivery, url: String, secret: String, now: Date = Date()) async
        -> WebhookAttemptResult
    {
        let body = Array(delivery.body.utf8)
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: Self.userAgent)
        request.headers.add(name: "Shopkeeper-Event-ID", value: delivery.eventID.uuidString.lowercased())
        request.headers.add(name: "Shopkeeper-Event-Type", value: delivery.type)
        request.headers.add(name: "Shopkeeper-Delivery-Attempt", value: String(delivery.attempt))
        request.headers.add(
            name: "Shopkeeper-Signature", value: WebhookSignature.header(secret: secret, timestamp: now, body: body))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let deadline = NIODeadline.now() + .milliseconds(timeout.milliseconds)
            let response = try await client.execute(request, deadline: deadline)
            let excerpt = try await Self.read(response.body, limit: Self.responseLimit)
            let status = Int(response.status.code)
            if (200..<300).contains(status) { return .delivered(status: status) }
            return .failed(status: status, error: Self.describe(status: response.status, body: excerpt))
        } catch {
            return .failed(status: nil, error: Self.describe(error))
        }
    }

    /// Reads at most `limit` bytes of a body; the rest is not waited for (the connection is then closed).
    private static func read(_ body: HTTPClientResponse.Body, limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in body {
            bytes.append(contentsOf: chunk.readableBytesView.prefix(limit - bytes.count))
            if bytes.count >= limit { break }
        }
        return bytes
    }

    /// `HTTP 500 Internal Server Error: <start of the body>`, printable characters only.
    static func describe(status: HTTPResponseStatus, body: [UInt8]) -> String {
        let text = String(decoding: body, as: UTF8.self)
            .map { $0.isNewline || !($0.isLetter || $0.isNumber || $0.isPunctuation || $0.isSymbol) ? " " : $0 }
        let excerpt = String(String(text).prefix(errorExcerpt)).trimmingCharacters(in: .whitespaces)
        let head = "HTTP \(status.code) \(status.reasonPhrase)"
        return excerpt.isEmpty ? head : "\(head): \(excerpt)"
    }

    /// A short, stable description of a failure to get an answer.
    static func describe(_ error: any Error) -> String {
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout, .connectTimeout:
                return "no answer within the timeout"
            case .remoteConnectionClosed:
                return "the receiver closed the connection"
            default:
                return "request failed: \(client)"
            }
        }
        return "request failed: \(String(describing: error).prefix(300))"
    }
}
