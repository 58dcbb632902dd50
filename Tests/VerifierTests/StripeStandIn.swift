import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ShopkeeperTestSupport

/// Stands in for Stripe's API in tests, over real HTTP on loopback: answers each `METHOD /path` (query left out)
/// with the answers scripted for it, in turn (the last one repeats), `404 resource_missing` for anything else, and
/// records every request as received.
actor StripeStandIn {
    /// One request as received.
    struct Received: Sendable {
        var method: HTTPRequest.Method
        /// The path with its query.
        var uri: String
        var headers: HTTPFields
        var body: String

        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
    }

    /// One scripted answer.
    struct Answer: Sendable {
        var status: HTTPResponse.Status
        var body: Data
        var headers: HTTPFields = [:]

        static func ok(_ body: Data) -> Answer { Answer(status: .ok, body: body) }

        /// Stripe's error shape.
        static func error(_ status: HTTPResponse.Status, type: String, code: String? = nil, message: String)
            -> Answer
        {
            var error: [String: Any] = ["type": type, "message": message]
            if let code { error["code"] = code }
            let body = (try? JSONSerialization.data(withJSONObject: ["error": error])) ?? Data()
            return Answer(status: status, body: body)
        }
    }

    private(set) var requests: [Received] = []
    private var scripts: [String: [Answer]] = [:]

    /// Answers `method path` with `answers`, in turn.
    func script(_ method: HTTPRequest.Method, _ path: String, _ answers: Answer...) {
        scripts["\(method) \(path)"] = answers
    }

    fileprivate func answer(_ received: Received) -> Answer {
        requests.append(received)
        let key = "\(received.method) \(received.uri.prefix { $0 != "?" })"
        guard var answers = scripts[key], let first = answers.first else {
            return .error(.notFound, type: "invalid_request_error", code: "resource_missing", message: "No such object")
        }
        if answers.count > 1 {
            answers.removeFirst()
            scripts[key] = answers
        }
        return first
    }

    /// Runs a stand-in on 127.0.0.1 for the duration of `body`, given its base URL.
    static func run<T: Sendable>(_ body: @Sendable (StripeStandIn, URL) async throws -> T) async throws -> T {
        let standIn = StripeStandIn()
        let router = Router()
        for method in [HTTPRequest.Method.get, .post, .delete] {
            router.on("**", method: method) { request, _ -> Response in
                let bytes = try await request.body.collect(upTo: 1 << 20)
                let answer = await standIn.answer(
                    Received(
                        method: request.method, uri: request.uri.description, headers: request.headers,
                        body: String(buffer: bytes)))
                var headers = answer.headers
                headers[.contentType] = "application/json"
                return Response(
                    status: answer.status, headers: headers,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
            }
        }
        var logger = Logger(label: "stripe-stand-in")
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        return try await app.testLive { client in
            guard let port = client.port, let url = URL(string: "http://127.0.0.1:\(port)") else {
                throw HarnessFailure("the Stripe stand-in has no port")
            }
            return try await body(standIn, url)
        }
    }
}
