import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ShopkeeperTestSupport

/// A webhook endpoint for tests, served over real HTTP on loopback: records every request and answers with the
/// status its ``Script`` gives.
actor WebhookReceiver {
    /// How the receiver answers.
    enum Script: Sendable {
        /// Always this status.
        case always(HTTPResponse.Status)
        /// 500 to the first `count` requests for each event id, then 200.
        case failFirst(Int)
        /// 307 to the receiver's own URL.
        case redirect
        /// 200, but only after this long.
        case slow(Duration)
        /// No answer until the receiver is released (``release()``, or the end of ``run(_:_:)``): a receiver that
        /// hangs until the sender's timeout.
        case hang
        /// This status, with this text in the body (which must never reach a tenant).
        case text(HTTPResponse.Status, String)
    }

    /// One request as received.
    struct Received: Sendable {
        var headers: HTTPFields
        var body: Data
        var status: HTTPResponse.Status
        /// The request's `Host` (its authority).
        var authority: String?
        /// When it arrived.
        var at: ContinuousClock.Instant
        /// `Shopkeeper-Event-ID`.
        var eventID: String? { headers[HTTPField.Name("Shopkeeper-Event-ID")!] }
        /// `Shopkeeper-Signature`.
        var signature: String? { headers[HTTPField.Name("Shopkeeper-Signature")!] }
    }

    private(set) var requests: [Received] = []
    /// Requests being answered now, and the most there ever were at once.
    private(set) var open = 0
    private(set) var mostOpen = 0
    private var script: Script
    private var released = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// The receiver's URL, once it listens.
    nonisolated let url: String

    private init(script: Script, url: String) {
        self.script = script
        self.url = url
    }

    /// Runs a receiver on 127.0.0.1 for the duration of `body`.
    static func run<T: Sendable>(
        _ script: Script, _ body: @Sendable (WebhookReceiver) async throws -> T
    ) async throws -> T {
        let holder = Holder()
        let router = Router()
        router.post("/hooks/shopkeeper") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            let receiver = try await holder.receiver()
            let (status, delay, text) = await receiver.record(
                headers: request.headers, authority: request.head.authority, body: Data(bytes.readableBytesView))
            if let delay { try await Task.sleep(for: delay) }
            if status == nil { await receiver.waitForRelease() }
            await receiver.close()
            let headers: HTTPFields = status == .temporaryRedirect ? [.location: receiver.url] : [:]
            return Response(
                status: status ?? .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        return try await app.testLive { client in
            guard let port = client.port else { throw HarnessError("the receiver has no port") }
            let receiver = WebhookReceiver(script: script, url: "http://127.0.0.1:\(port)/hooks/shopkeeper")
            await holder.set(receiver)
            do {
                let result = try await body(receiver)
                await receiver.release()
                return result
            } catch {
                await receiver.release()
                throw error
            }
        }
    }

    /// The receiver's port.
    nonisolated var port: Int { URLComponents(string: url)?.port ?? 0 }

    /// Answers every hanging request, and those still to come, at once.
    func release() {
        released = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }

    private func waitForRelease() async {
        guard !released else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func close() {
        open -= 1
    }

    /// Changes how the receiver answers from now on.
    func answer(_ script: Script) {
        self.script = script
    }

    /// The requests received for one event.
    func requests(for eventID: String) -> [Received] {
        requests.filter { $0.eventID == eventID }
    }

    /// Records a request; returns the status to answer (`nil`: hang until released), how long to wait first and
    /// the body's text.
    private func record(headers: HTTPFields, authority: String?, body: Data) -> (
        HTTPResponse.Status?, Duration?, String
    ) {
        let id = headers[HTTPField.Name("Shopkeeper-Event-ID")!]
        let earlier = requests.filter { $0.eventID == id }.count
        open += 1
        mostOpen = max(mostOpen, open)
        let (status, delay, text): (HTTPResponse.Status?, Duration?, String) =
            switch script {
            case .always(let status): (status, nil, "recorded")
            case .failFirst(let count): (earlier < count ? .internalServerError : .ok, nil, "recorded")
            case .redirect: (.temporaryRedirect, nil, "recorded")
            case .slow(let delay): (.ok, delay, "recorded")
            case .hang: (released ? .ok : nil, nil, "recorded")
            case .text(let status, let text): (status, nil, text)
            }
        requests.append(
            Received(
                headers: headers, body: body, status: status ?? .ok, authority: authority, at: ContinuousClock.now))
        return (status, delay, text)
    }

    /// Hands the receiver to the route, which exists before the port is known.
    private actor Holder {
        private var value: WebhookReceiver?

        func set(_ receiver: WebhookReceiver) { value = receiver }

        func receiver() throws -> WebhookReceiver {
            guard let value else { throw HTTPError(.serviceUnavailable) }
            return value
        }
    }
}
