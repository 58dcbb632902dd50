/// Every failure of ShopkeeperKit. What matters to an app is whether trying again can help (``isRetryable``) and,
/// for the server's answers, the stable ``code``.
public enum ShopkeeperError: Error, Hashable, Sendable {
    /// The server answered with a problem document (or a status without one, as a synthesized problem).
    /// `retryAfter` is the `Retry-After` header in seconds, when given.
    case server(Problem, retryAfter: Double?)
    /// The server could not be reached or the connection broke (no answer to judge).
    case transport(String)
    /// The server's answer did not decode as the document says.
    case decoding(String)
    /// The device's store failed (StoreKit, the sandbox store).
    case deviceStore(String)
    /// The user cancelled the purchase, or it waits for approval (Ask to Buy): nothing to send yet.
    case purchaseNotCompleted(String)
    /// A product the catalog does not list for this build, or that cannot be bought this way.
    case productUnavailable(String)
    /// A downloaded file does not match its manifest's SHA-256 even after a fresh download.
    case checksumMismatch(path: String)
    /// Reading or writing the package's files on the device failed.
    case storage(String)
    /// The purchase's content was withdrawn (refunded or revoked); its files were deleted from the device.
    case contentRevoked(productID: String)
    /// The app trusts answer keys and this answer is not signed by one of them for this request (altered, replayed,
    /// unsigned, or too far from the device's clock): it was not used. See ``ShopkeeperConfiguration/answerKeys``.
    case untrustedAnswer(String)

    /// The server's stable error code, for server answers.
    public var code: String? {
        if case .server(let problem, _) = self { return problem.code }
        return nil
    }

    /// The HTTP status of a server answer.
    public var status: Int? {
        if case .server(let problem, _) = self { return problem.status }
        return nil
    }

    /// Whether the same request may succeed later: transport failures, `429`, and `5xx`. Never a `4xx` verdict.
    public var isRetryable: Bool {
        switch self {
        case .transport: true
        case .server(let problem, _): RetryPolicy.isRetryable(status: problem.status)
        default: false
        }
    }
}
