/// An RFC 9457 problem document, the body of every error answer (schema `Problem`). Switch on ``code``.
public struct Problem: Codable, Hashable, Sendable {
    /// A URI naming the problem type.
    public var type: String
    /// The HTTP status's reason phrase.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// A human-readable explanation; never switch on it.
    public var detail: String
    /// The stable, machine-readable code.
    public var code: String
    /// The request id to quote when asking for help.
    public var requestID: String?
    /// Field-level problems of invalid input.
    public var errors: [FieldProblem]?

    enum CodingKeys: String, CodingKey {
        case type, title, status, detail, code, errors
        case requestID = "request_id"
    }
}

/// One invalid field of a request (schema `FieldProblem`).
public struct FieldProblem: Codable, Hashable, Sendable {
    /// JSON pointer to the field, or `?name` for a query parameter.
    public var pointer: String
    /// What is wrong with it.
    public var detail: String
}
