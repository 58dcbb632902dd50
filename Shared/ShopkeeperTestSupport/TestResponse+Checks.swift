import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// What the tests read of a response, whichever client brought it: HummingbirdTesting's `TestResponse` or a
/// ``ConcurrentHTTP/Answer``.
package protocol HTTPAnswer: Sendable {
    var status: HTTPResponse.Status { get }
    var headers: HTTPFields { get }
    var body: ByteBuffer { get }
}

extension TestResponse: HTTPAnswer {}

extension HTTPAnswer {
    /// Where this response departs from `docs/openapi.yaml` for the operation `method template` (empty when it fits).
    package func violations(_ method: HTTPRequest.Method, _ template: String) throws -> [String] {
        try OpenAPIDocument.load().violations(
            method: method.rawValue, path: template, status: status.code, contentType: headers[.contentType],
            body: Data(body.readableBytesView))
    }

    /// The problem `code` of an error response.
    package var problemCode: String? {
        (try? TestJSON.object(body.readableBytesView))?["code"] as? String
    }

    /// The body decoded as `type`.
    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try TestJSON.decode(type, body.readableBytesView)
    }

    /// The body as text.
    package var text: String { String(decoding: body.readableBytesView, as: UTF8.self) }
}
