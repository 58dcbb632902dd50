import HTTPTypes

/// Problems with a request as such, common to every service.
package enum RequestError: ProblemError {
    /// The body is not JSON at all.
    case malformedJSON(String)
    /// The body is well-formed JSON but its values are not acceptable.
    case validationFailed([FieldProblem])
    /// Query parameters are missing or invalid (each reported as `?name`).
    case invalidQuery([FieldProblem])
    /// The path cannot name a resource (it holds an encoded NUL).
    case invalidURL(String)
    /// The body is larger than the endpoint accepts.
    case bodyTooLarge(limit: Int)
    /// A required header is missing or unusable.
    case badHeader(name: String, detail: String)
    /// No route answers this path.
    case notFound
    /// The route exists, but not for this method.
    case methodNotAllowed
    /// The media type of the body is not accepted.
    case unsupportedMediaType(String)

    package var status: HTTPResponse.Status {
        switch self {
        case .malformedJSON, .badHeader, .invalidQuery, .invalidURL: .badRequest
        case .validationFailed: .unprocessableContent
        case .bodyTooLarge: .contentTooLarge
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .unsupportedMediaType: .unsupportedMediaType
        }
    }

    package var code: String {
        switch self {
        case .malformedJSON: "malformed_json"
        case .validationFailed: "validation_failed"
        case .invalidQuery: "invalid_query"
        case .invalidURL: "invalid_url"
        case .bodyTooLarge: "body_too_large"
        case .badHeader: "bad_header"
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .unsupportedMediaType: "unsupported_media_type"
        }
    }

    package var detail: String {
        switch self {
        case .malformedJSON(let reason): "The body is not valid JSON: \(reason)"
        case .validationFailed(let problems):
            problems.count == 1
                ? "Invalid input at \(problems[0].pointer): \(problems[0].detail)"
                : "The input has \(problems.count) invalid fields; see errors."
        case .invalidQuery(let problems):
            "Invalid query: " + problems.map { "\($0.pointer) \($0.detail)" }.joined(separator: "; ")
        case .invalidURL(let detail): detail
        case .bodyTooLarge(let limit): "The body is larger than the limit of \(limit) bytes."
        case .badHeader(let name, let detail): "Header \(name): \(detail)"
        case .notFound: "No resource exists at this path."
        case .methodNotAllowed: "This path does not accept this method."
        case .unsupportedMediaType(let type): "Send application/json, not \(type)."
        }
    }

    package var fieldProblems: [FieldProblem] {
        switch self {
        case .validationFailed(let problems), .invalidQuery(let problems): problems
        default: []
        }
    }

    /// A single invalid field.
    package static func invalid(_ pointer: String, _ detail: String) -> RequestError {
        .validationFailed([FieldProblem(pointer: pointer, detail: detail)])
    }
}
