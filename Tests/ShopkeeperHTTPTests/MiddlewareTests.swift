import Foundation
import Hummingbird
import HummingbirdTesting
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperTestSupport
import Testing

/// The shared middleware on a small router: request ids, problem rendering, internal signatures on `/internal/`.
@Suite struct MiddlewareTests {
    struct Failure: Error {}

    func router() -> Router<ServiceRequestContext> {
        let router = Router(context: ServiceRequestContext.self)
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: ProblemMiddleware())
        router.add(
            middleware: InternalAuthMiddleware(
                signature: InternalSignature(secret: TestEnvironment.internalSecret), internalBodyLimit: 64))
        router.get("/v1/crash") { _, _ -> String in throw Failure() }
        router.get("/v1/echo-id") { _, context -> String in context.requestID ?? "" }
        router.post("/internal/echo") { request, context -> String in
            let body = try await request.body.collect(upTo: 64)
            return "\(try context.requireCaller().appID):\(String(buffer: body))"
        }
        return router
    }

    @Test func unknownErrorsBecomeOpaque500Problems() async throws {
        let app = Application(router: router())
        try await app.test(.router) { client in
            let headers = HTTPFields.signed(.get, "/v1/crash", appID: "app_1")
            let response = try await client.execute(uri: "/v1/crash", method: .get, headers: headers)
            #expect(response.status == .internalServerError)
            #expect(response.headers[.contentType] == "application/problem+json")
            let problem = try TestJSON.object(response.body.readableBytesView)
            #expect(problem["code"] as? String == "internal_error")
            #expect(!(String(buffer: response.body).contains("Failure")))
            #expect(problem["request_id"] as? String == response.headers[.requestID])
        }
    }

    @Test func requestIDsAreKeptWhenSaneAndReplacedOtherwise() async throws {
        let app = Application(router: router())
        try await app.test(.router) { client in
            var headers = HTTPFields.signed(.get, "/v1/echo-id", appID: "app_1")
            headers[.requestID] = "trace-123.abc"
            let kept = try await client.execute(uri: "/v1/echo-id", method: .get, headers: headers)
            #expect(kept.headers[.requestID] == "trace-123.abc")
            #expect(String(buffer: kept.body) == "trace-123.abc")

            headers[.requestID] = "bad id with spaces"
            let replaced = try await client.execute(uri: "/v1/echo-id", method: .get, headers: headers)
            let generated = try #require(replaced.headers[.requestID])
            #expect(generated != "bad id with spaces" && !generated.isEmpty)
            #expect(String(buffer: replaced.body) == generated)

            let unknown = try await client.execute(uri: "/nowhere", method: .get)
            #expect(unknown.status == .notFound || unknown.status == .unauthorized)
            #expect(unknown.headers[.contentType] == "application/problem+json")
        }
    }

    @Test func internalEndpointsRequireASignedBody() async throws {
        let app = Application(router: router())
        try await app.test(.router) { client in
            let body = Data("hello".utf8)
            let signed = HTTPFields.signed(.post, "/internal/echo", appID: "app_1", body: body)
            let ok = try await client.execute(
                uri: "/internal/echo", method: .post, headers: signed, body: ByteBuffer(bytes: body))
            #expect(ok.status == .ok)
            #expect(String(buffer: ok.body) == "app_1:hello")

            let tampered = try await client.execute(
                uri: "/internal/echo", method: .post, headers: signed, body: ByteBuffer(string: "HELLO")
            )
            #expect(tampered.status == .unauthorized)

            let unsignedBody = HTTPFields.signed(.post, "/internal/echo", appID: "app_1")
            let refused = try await client.execute(
                uri: "/internal/echo", method: .post, headers: unsignedBody, body: ByteBuffer(bytes: body)
            )
            #expect(refused.status == .unauthorized)
            #expect(
                try TestJSON.object(refused.body.readableBytesView)["code"] as? String == "invalid_internal_signature")

            let big = Data(repeating: 0x61, count: 100)
            let tooLarge = HTTPFields.signed(.post, "/internal/echo", appID: "app_1", body: big)
            let response = try await client.execute(
                uri: "/internal/echo", method: .post, headers: tooLarge, body: ByteBuffer(bytes: big))
            #expect(response.status == .contentTooLarge)
        }
    }
}
