import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Requests that must reach a live test server at the same time, each over a connection of its own (AsyncHTTPClient):
/// HummingbirdTesting's live client sends every request over one connection, pipelined, and the server answers
/// those one after another, so "at once" through it is in sequence.
package enum ConcurrentHTTP {
    /// A response: status, headers and body.
    package struct Answer: HTTPAnswer {
        package var status: HTTPResponse.Status
        package var headers: HTTPFields
        package var body: ByteBuffer

        package init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: ByteBuffer) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    /// One client for the process: up to 8 requests of a race run at once (the verifier's calls to entitlements
    /// time out on a loaded machine when all 50 do), the others wait in its pool; never shut down. The connect
    /// timeout also bounds that wait for a pooled connection (10 s by default, which 42 requests queued behind 8
    /// slow ones outlast on a loaded machine), so it is as generous as the request timeout.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 8)
        configuration.timeout = .init(connect: .seconds(300), read: .seconds(300))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Sends one request to `127.0.0.1:port` (a body without a content type is sent as JSON). The timeout is generous: these tests are about what happens, not how
    /// fast, and a loaded 2-core machine running the whole suite can stall a process for seconds.
    package static func send(
        port: Int, _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields, body: Data? = nil,
        timeout: TimeAmount = .seconds(300)
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(uri)")
        request.method = HTTPMethod(rawValue: method.rawValue)
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        if body != nil, headers[.contentType] == nil {
            request.headers.add(name: "content-type", value: "application/json")
        }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: timeout)
        var fields = HTTPFields()
        for header in response.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return Answer(status: HTTPResponse.Status(code: Int(response.status.code)), headers: fields, body: bytes)
    }
}
