import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging

/// A webhook receiver on loopback for the console's tests: answers 503 until it is fixed, then 200, and records the
/// event id of every delivery it answered with 200.
actor ConsoleWebhookReceiver {
    private(set) var delivered: [String] = []
    private(set) var refused = 0
    private var fixed = false
    nonisolated let url: String

    private init(url: String) { self.url = url }

    /// From now on every delivery is answered 200.
    func fix() { fixed = true }

    private func answer(eventID: String?) -> HTTPResponse.Status {
        guard fixed else {
            refused += 1
            return .serviceUnavailable
        }
        if let eventID { delivered.append(eventID) }
        return .ok
    }

    /// Runs a broken receiver on 127.0.0.1 for the duration of `body`.
    static func run(_ body: @Sendable (ConsoleWebhookReceiver) async throws -> Void) async throws {
        try await LoopbackStub.run(
            label: "console-webhook-receiver",
            routes: { router, receiver in
                router.post("/hooks") { request, _ -> Response in
                    _ = try await request.body.collect(upTo: 1 << 20)
                    guard let receiver = await receiver.value else { return Response(status: .serviceUnavailable) }
                    let status = await receiver.answer(eventID: request.headers[HTTPField.Name("Shopkeeper-Event-ID")!])
                    return Response(status: status)
                }
            },
            make: { ConsoleWebhookReceiver(url: $0 + "/hooks") }, body)
    }
}
