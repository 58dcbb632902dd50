import Foundation
import HTTPTypes
import Hummingbird

/// An RFC 9457 problem document, the body of every error response.
package struct Problem: Codable, Sendable, Equatable {
    /// A URI naming the problem type: `https://shopkeeper.dev/problems/<code>`.
    package var type: String
    package var title: String
    package var status: Int
    package var detail: String
    /// Stable, machine-readable: clients switch on this, never on `detail`.
    package var code: String
    /// The request id, to quote when asking for help.
    package var requestID: String?
    /// Field-level problems of invalid input, each located by a JSON pointer.
    package var errors: [FieldProblem]?

    package enum CodingKeys: String, CodingKey {
        case type, title, status, detail, code, errors
        case requestID = "request_id"
    }

    /// The `type` URI for a code.
    package static func typeURI(code: String) -> String { "https://shopkeeper.dev/problems/\(code)" }
}

/// One invalid field of a request.
package struct FieldProblem: Codable, Sendable, Equatable {
    /// RFC 6901 JSON pointer to the field (`/products/2/type`), or a query parameter name (`?app_version`).
    package var pointer: String
    package var detail: String

    package init(pointer: String, detail: String) {
        self.pointer = pointer
        self.detail = detail
    }
}

/// An error that renders as `application/problem+json` with a stable `code`.
///
/// Each concern (requests, authentication, catalog, upstream calls) has one type conforming to this.
package protocol ProblemError: HTTPResponseError {
    /// Stable machine-readable code, such as `product_not_found`.
    var code: String { get }
    /// A human-readable explanation of this occurrence; never internal detail (SQL, stack traces).
    var detail: String { get }
    /// Field-level problems, when the input was invalid.
    var fieldProblems: [FieldProblem] { get }
    /// Extra response headers, such as `Retry-After`.
    var headers: HTTPFields { get }
}

extension ProblemError {
    package var fieldProblems: [FieldProblem] { [] }
    package var headers: HTTPFields { [:] }

    /// The problem document for this error.
    package func problem(requestID: String?) -> Problem {
        Problem(
            type: Problem.typeURI(code: code),
            title: status.reasonPhrase,
            status: status.code,
            detail: detail,
            code: code,
            requestID: requestID,
            errors: fieldProblems.isEmpty ? nil : fieldProblems
        )
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        let requestID = context.requestID
        return ProblemRenderer.response(status: status, problem: problem(requestID: requestID), headers: headers)
    }
}

/// Renders problem documents.
package enum ProblemRenderer {
    /// `application/problem+json`.
    package static let contentType = "application/problem+json"

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// A response carrying `problem`.
    package static func response(status: HTTPResponse.Status, problem: Problem, headers extra: HTTPFields = [:])
        -> Response
    {
        let (headers, body) = parts(problem: problem, headers: extra)
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// The headers and body of a response carrying `problem`, for code that writes responses below the router.
    package static func parts(problem: Problem, headers extra: HTTPFields = [:]) -> (HTTPFields, ByteBuffer) {
        let data = (try? encoder.encode(problem)) ?? Data("{}".utf8)
        var headers = extra
        headers[.contentType] = contentType
        headers[.contentLength] = String(data.count)
        headers[.cacheControl] = "no-store"
        return (headers, ByteBuffer(bytes: data))
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`: accepted from the caller or generated, echoed back and passed on.
    package static let requestID = "x-request-id".fieldName
}
