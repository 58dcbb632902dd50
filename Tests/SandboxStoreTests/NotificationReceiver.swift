import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

@testable import SandboxStore

/// A real HTTP server on a live port that records what the sandbox POSTs to `/apple`, `/google` and `/stripe`, answering 200
/// (or 500 for the next `failures` requests of a path).
actor NotificationInbox {
    /// One request as it arrived.
    struct Received: Sendable {
        var path: String
        var authorization: String?
        var contentType: String?
        var body: String
        /// Stripe webhooks: the `Stripe-Signature` header.
        var signature: String? = nil
    }

    private(set) var received: [Received] = []
    private var failures: [String: Int] = [:]

    func fail(next count: Int, path: String) {
        failures[path] = count
    }

    /// Records a request; the status to answer.
    func record(_ request: Received) -> HTTPResponse.Status {
        received.append(request)
        if let left = failures[request.path], left > 0 {
            failures[request.path] = left - 1
            return .internalServerError
        }
        return .ok
    }

    func requests(_ path: String) -> [Received] {
        received.filter { $0.path == path }
    }

    /// The distinct notifications that reached `path`, in order: a delivery the sandbox sent again because its first
    /// answer came too late (a loaded machine) arrives byte for byte again and counts once, as a receiver that keys
    /// notifications by `notificationUUID` counts it.
    func notifications(_ path: String) -> [Received] {
        var seen: Set<String> = []
        return requests(path).filter { seen.insert($0.body).inserted }
    }

    /// Waits until `count` distinct notifications reached `path` (at most `timeout`); what arrived by then.
    nonisolated func waitForNotifications(_ count: Int, at path: String, timeout: Duration = .seconds(10)) async throws
        -> [Received]
    {
        try await eventually(timeout: timeout, { await notifications(path) }, until: { $0.count >= count })
    }

    /// Waits until `count` requests reached `path` (at most `timeout`); what arrived by then.
    nonisolated func wait(for count: Int, at path: String, timeout: Duration = .seconds(10)) async throws -> [Received]
    {
        try await eventually(timeout: timeout, { await requests(path) }, until: { $0.count >= count })
    }
}

/// A notification receiver on a live port, and the sandbox store pointed at it.
struct NotificationWorld {
    let sandbox: SandboxHarness
    let inbox: NotificationInbox
    let receiverURL: String
    let verifier: AppleSignedDataVerifier

    var appleURL: String { receiverURL + "/apple" }
    var googleURL: String { receiverURL + "/google" }

    /// Runs a receiver, then a sandbox store sending both stores' notifications to it. The clock is off unless
    /// `environment` turns it on (tests drive it with `advance`).
    static func run(
        environment: [String: String] = [:], _ body: @Sendable (NotificationWorld) async throws -> Void
    ) async throws {
        try await receiving { inbox, base in
            try await SandboxHarness.run(environment: sandboxEnvironment(receiver: base).merging(environment) { $1 }) {
                sandbox in
                let verifier = try AppleSignedDataVerifier(trustedRoots: [try await sandbox.root()])
                try await body(NotificationWorld(sandbox: sandbox, inbox: inbox, receiverURL: base, verifier: verifier))
            }
        }
    }

    /// A sandbox store's settings sending both stores' notifications to `receiver`, quickly retried, clock off.
    static func sandboxEnvironment(receiver base: String) -> [String: String] {
        [
            "SHOPKEEPER_SANDBOX_APPLE_NOTIFICATION_URL": base + "/apple",
            "SHOPKEEPER_SANDBOX_GOOGLE_NOTIFICATION_URL": base + "/google",
            "SHOPKEEPER_SANDBOX_STRIPE_WEBHOOK_URL": base + "/stripe",
            "SHOPKEEPER_SANDBOX_AUTO_RENEW": "false",
            "SHOPKEEPER_SANDBOX_NOTIFICATION_RETRY_MS": "20",
        ]
    }

    /// Runs a receiver recording into an inbox, and `body` with the inbox and the receiver's base URL.
    static func receiving(_ body: @Sendable (NotificationInbox, String) async throws -> Void) async throws {
        let inbox = NotificationInbox()
        let router = Router()
        for path in ["apple", "google", "stripe"] {
            router.post(RouterPath(stringLiteral: path)) { request, _ -> Response in
                let buffer = try await request.body.collect(upTo: 1 << 20)
                let status = await inbox.record(
                    .init(
                        path: "/" + path, authorization: request.headers[.authorization],
                        contentType: request.headers[.contentType], body: String(buffer: buffer),
                        signature: HTTPField.Name("Stripe-Signature").flatMap { request.headers[$0] }))
                return Response(status: status)
            }
        }
        let receiver = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await receiver.testLive { client in
            try await body(inbox, "http://127.0.0.1:\(try #require(client.port))")
        }
    }

    /// The Apple notifications received so far (at least `count`, waiting for them), verified and decoded. `distinct`:
    /// a notification sent again byte for byte counts once (a delivery retried because its answer came too late),
    /// for tests about what the store sent rather than how often it delivered it.
    func apple(count: Int, distinct: Bool = false) async throws -> [AppleNotificationPayload] {
        let received =
            distinct
            ? try await inbox.waitForNotifications(count, at: "/apple") : try await inbox.wait(for: count, at: "/apple")
        #expect(received.count >= count)
        var payloads: [AppleNotificationPayload] = []
        for request in received {
            #expect(request.contentType == "application/json")
            let body = try JSONDecoder().decode(AppleResponseBodyV2.self, from: Data(request.body.utf8))
            payloads.append(try await verifier.verify(body.signedPayload, as: AppleNotificationPayload.self))
        }
        return payloads
    }

    /// `type/subtype` of each Apple notification received (waiting for `count`).
    func appleKinds(count: Int, distinct: Bool = false) async throws -> [String] {
        try await apple(count: count, distinct: distinct).map {
            [$0.notificationType, $0.subtype].compactMap { $0 }.joined(separator: "/")
        }
    }

    /// The signed transaction and renewal info a notification carries, verified.
    func contents(_ payload: AppleNotificationPayload) async throws -> (
        AppleTransactionPayload?, AppleRenewalInfoPayload?
    ) {
        let transaction = try await payload.data?.signedTransactionInfo.asyncMap {
            try await verifier.verify($0, as: AppleTransactionPayload.self)
        }
        let renewal = try await payload.data?.signedRenewalInfo.asyncMap {
            try await verifier.verify($0, as: AppleRenewalInfoPayload.self)
        }
        return (transaction, renewal)
    }

    /// The first logged delivery once it satisfies `condition` (the log is written after the receiver answers), or
    /// as it is after five seconds.
    func delivery(_ condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
        try await eventually(
            timeout: .seconds(5),
            {
                let log = try await control(.get, "/sandbox/notifications")
                return (log["deliveries"] as? [[String: Any]])?.first ?? [:]
            }, until: condition)
    }

    /// Sends a control request and checks it answered `status`; the body as an object.
    @discardableResult
    func control(
        _ method: HTTPRequest.Method, _ path: String, json: [String: Any]? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> [String: Any] {
        let response = try await sandbox.send(method, path, json: json)
        #expect(response.status == status, "\(method) \(path): \(String(buffer: response.body))")
        guard response.body.readableBytes > 0 else { return [:] }
        return try sandbox.object(response)
    }
}

extension Optional {
    /// `map` with an async throwing transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        switch self {
        case .some(let value): try await transform(value)
        case .none: nil
        }
    }
}
