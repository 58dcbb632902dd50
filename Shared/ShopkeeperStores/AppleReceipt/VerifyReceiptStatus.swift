/// The `status` of a `verifyReceipt` response, Apple's table of outcomes.
package enum VerifyReceiptStatus: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 0: the receipt is valid (even if a subscription in it has expired).
    case valid
    /// 21000: the request was not an HTTP POST (formerly: the App Store could not read the JSON object).
    case invalidRequest
    /// 21001: no longer sent by the App Store.
    case deprecated21001
    /// 21002: the `receipt-data` was malformed, or the service had a temporary issue. Retryable.
    case malformedReceiptData
    /// 21003: the receipt could not be authenticated.
    case notAuthenticated
    /// 21004: the shared secret (`password`) does not match the one on file for the account.
    case sharedSecretMismatch
    /// 21005: the receipt server was temporarily unable to provide the receipt. Retryable.
    case serverUnavailable
    /// 21006: the receipt is valid but the subscription has expired (iOS 6-style transaction receipts only).
    case subscriptionExpired
    /// 21007: a sandbox receipt was sent to the production environment.
    case sandboxReceiptSentToProduction
    /// 21008: a production receipt was sent to the sandbox environment.
    case productionReceiptSentToSandbox
    /// 21009: internal data access error. Retryable.
    case internalDataAccessError
    /// 21010: the user account cannot be found or has been deleted.
    case accountNotFound
    /// 21100…21199: one of Apple's internal data access errors. Retryable.
    case internalError(Int)
    /// Any other code.
    case unknown(Int)

    /// The status for a numeric code.
    package init(code: Int) {
        switch code {
        case 0: self = .valid
        case 21000: self = .invalidRequest
        case 21001: self = .deprecated21001
        case 21002: self = .malformedReceiptData
        case 21003: self = .notAuthenticated
        case 21004: self = .sharedSecretMismatch
        case 21005: self = .serverUnavailable
        case 21006: self = .subscriptionExpired
        case 21007: self = .sandboxReceiptSentToProduction
        case 21008: self = .productionReceiptSentToSandbox
        case 21009: self = .internalDataAccessError
        case 21010: self = .accountNotFound
        case 21100...21199: self = .internalError(code)
        default: self = .unknown(code)
        }
    }

    /// The numeric code Apple sends.
    package var code: Int {
        switch self {
        case .valid: 0
        case .invalidRequest: 21000
        case .deprecated21001: 21001
        case .malformedReceiptData: 21002
        case .notAuthenticated: 21003
        case .sharedSecretMismatch: 21004
        case .serverUnavailable: 21005
        case .subscriptionExpired: 21006
        case .sandboxReceiptSentToProduction: 21007
        case .productionReceiptSentToSandbox: 21008
        case .internalDataAccessError: 21009
        case .accountNotFound: 21010
        case .internalError(let code), .unknown(let code): code
        }
    }

    /// Whether the same request may succeed later: 21002, 21005, 21009 and 21100…21199.
    package var isRetryable: Bool {
        switch self {
        case .malformedReceiptData, .serverUnavailable, .internalDataAccessError, .internalError: true
        default: false
        }
    }

    package var description: String { String(code) }

    package init(from decoder: any Decoder) throws {
        self.init(code: try decoder.singleValueContainer().decode(Int.self))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}
