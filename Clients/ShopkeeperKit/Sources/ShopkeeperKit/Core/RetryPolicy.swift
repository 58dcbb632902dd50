/// When and how often a request is tried again: on `429` and `5xx` answers and broken connections, never on
/// another `4xx` (a verdict that will not change). Waits `Retry-After` when the server gives it, otherwise an
/// exponential backoff with jitter.
public struct RetryPolicy: Hashable, Sendable {
    /// Tries of one request in all (1: no retry).
    public var maxAttempts: Int
    /// The first backoff, in seconds; doubles per try.
    public var baseDelay: Double
    /// The longest wait, in seconds (a longer `Retry-After` is cut to it).
    public var maxDelay: Double

    /// A policy; the defaults try four times within about ten seconds.
    public init(maxAttempts: Int = 4, baseDelay: Double = 0.5, maxDelay: Double = 8) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    /// No retries: each request is sent once (the purchase queue still retries later).
    public static let none = RetryPolicy(maxAttempts: 1)

    /// Whether an answer with this status may change if the same request is sent again.
    public static func isRetryable(status: Int) -> Bool {
        status == 429 || status == 408 || (500...599).contains(status)
    }

    /// Seconds to wait after failed try number `attempt` (1-based): `retryAfter` when given, else
    /// `baseDelay * 2^(attempt-1)` with equal jitter (`unit` in 0...1 picks the random half); at most `maxDelay`.
    public func delay(afterAttempt attempt: Int, retryAfter: Double?, unit: Double = Double.random(in: 0...1))
        -> Double
    {
        if let retryAfter { return min(max(0, retryAfter), maxDelay) }
        let exponential = baseDelay * Double(1 << min(max(attempt - 1, 0), 20))
        let capped = min(exponential, maxDelay)
        return capped / 2 + capped / 2 * min(max(unit, 0), 1)
    }

    /// Parses `Retry-After`: whole seconds (what Shopkeeper sends) or an HTTP date is ignored as unknown.
    public static func retryAfterSeconds(_ header: String?) -> Double? {
        guard let header, let seconds = Double(header.trimmingCharacters(in: .whitespaces)), seconds >= 0 else {
            return nil
        }
        return seconds
    }
}
