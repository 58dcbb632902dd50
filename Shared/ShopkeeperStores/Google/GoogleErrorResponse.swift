/// The body of every Google API error: `{"error":{"code":404,"message":"...","errors":[...],"status":"NOT_FOUND"}}`.
public struct GoogleErrorResponse: Codable, Sendable, Equatable {
    public var error: GoogleErrorBody

    public init(error: GoogleErrorBody) {
        self.error = error
    }

    /// An error with one `errors` entry in the `global` domain, as the Play Developer API sends them.
    public init(code: Int, message: String, status: String, reason: String) {
        self.init(
            error: GoogleErrorBody(
                code: code, message: message,
                errors: [GoogleErrorItem(message: message, domain: "global", reason: reason)], status: status
            )
        )
    }
}

/// Google's error object.
public struct GoogleErrorBody: Codable, Sendable, Equatable {
    /// The HTTP status code.
    public var code: Int?
    public var message: String?
    public var errors: [GoogleErrorItem]?
    /// The gRPC status name, e.g. `NOT_FOUND`, `UNAUTHENTICATED`, `INVALID_ARGUMENT`.
    public var status: String?

    public init(code: Int?, message: String?, errors: [GoogleErrorItem]?, status: String?) {
        self.code = code
        self.message = message
        self.errors = errors
        self.status = status
    }
}

/// One entry of ``GoogleErrorBody/errors``.
public struct GoogleErrorItem: Codable, Sendable, Equatable {
    public var message: String?
    public var domain: String?
    /// Machine-readable, e.g. `invalid`, `purchaseTokenNoLongerValid`, `invalidPurchaseState`.
    public var reason: String?

    public init(message: String?, domain: String?, reason: String?) {
        self.message = message
        self.domain = domain
        self.reason = reason
    }
}
