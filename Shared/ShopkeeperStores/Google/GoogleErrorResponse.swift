/// The body of every Google API error: `{"error":{"code":404,"message":"...","errors":[...],"status":"NOT_FOUND"}}`.
package struct GoogleErrorResponse: Codable, Sendable, Equatable {
    package var error: GoogleErrorBody

    package init(error: GoogleErrorBody) {
        self.error = error
    }

    /// An error with one `errors` entry in the `global` domain, as the Play Developer API sends them.
    package init(code: Int, message: String, status: String, reason: String) {
        self.init(
            error: GoogleErrorBody(
                code: code, message: message,
                errors: [GoogleErrorItem(message: message, domain: "global", reason: reason)], status: status
            )
        )
    }
}

/// Google's error object.
package struct GoogleErrorBody: Codable, Sendable, Equatable {
    /// The HTTP status code.
    package var code: Int?
    package var message: String?
    package var errors: [GoogleErrorItem]?
    /// The gRPC status name, e.g. `NOT_FOUND`, `UNAUTHENTICATED`, `INVALID_ARGUMENT`.
    package var status: String?

    package init(code: Int?, message: String?, errors: [GoogleErrorItem]?, status: String?) {
        self.code = code
        self.message = message
        self.errors = errors
        self.status = status
    }
}

/// One entry of ``GoogleErrorBody/errors``.
package struct GoogleErrorItem: Codable, Sendable, Equatable {
    package var message: String?
    package var domain: String?
    /// Machine-readable, e.g. `invalid`, `purchaseTokenNoLongerValid`, `invalidPurchaseState`.
    package var reason: String?

    package init(message: String?, domain: String?, reason: String?) {
        self.message = message
        self.domain = domain
        self.reason = reason
    }
}
