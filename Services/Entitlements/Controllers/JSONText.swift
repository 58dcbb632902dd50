import Hummingbird
import NIOCore
import ShopkeeperCore
import ShopkeeperHTTP

/// JSON that is already text (customer info and history are rendered by PostgreSQL), composed and sent as it is,
/// without a decode and encode round trip that would drop its `null`s.
enum JSONText {
    /// `value` as a JSON string literal.
    static func string(_ value: String) -> String {
        JSONString.quoted(value)
    }

    /// An object whose member values are JSON texts, in the order given.
    static func object(_ members: KeyValuePairs<String, String>) -> String {
        "{" + members.map { string($0.key) + ":" + $0.value }.joined(separator: ",") + "}"
    }

    /// A response carrying `json`: `application/json`, or `application/problem+json` for an error status.
    static func response(_ json: String, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:])
        -> Response
    {
        var headers = extra
        if status.code >= 400 {
            headers[.contentType] = ProblemRenderer.contentType
            headers[.cacheControl] = "no-store"
        } else {
            headers[.contentType] = "application/json; charset=utf-8"
        }
        headers[.contentLength] = String(json.utf8.count)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }
}
