/// One try at a store call that did not produce an answer to use.
enum StoreAttemptError: Error {
    /// Worth another try: a timeout, a 5xx, a 429, a status the store calls temporary.
    case retryable(reason: String, retryAfter: Duration?)
    /// A verdict or a failure that another try will not change.
    case final(VerifierError)
}

/// How often and how patiently a store call is retried: capped exponential backoff, and a store's
/// `Retry-After` honoured when it is within the cap. When the tries are used up the caller gets
/// ``VerifierError/storeUnavailable(store:reason:retryAfterSeconds:)`` (503), never a verdict.
struct RetryPolicy: Sendable {
    /// Tries in all, the first included.
    var attempts: Int
    /// Wait after the first failed try; doubles after each further one.
    var base: Duration
    /// The longest wait between tries, and the longest `Retry-After` waited for.
    var cap: Duration = .seconds(2)

    /// The wait after failed try number `attempt` (1-based).
    func backoff(after attempt: Int) -> Duration {
        var delay = base
        for _ in 1..<max(1, attempt) {
            delay = delay * 2
            if delay >= cap { return cap }
        }
        return min(delay, cap)
    }

    /// Runs `body` (given the 1-based try number) until it answers, fails for good, or the tries run out.
    func run<T>(store: String, _ body: (Int) async throws(StoreAttemptError) -> T) async throws(VerifierError) -> T {
        var lastReason = "no answer"
        var lastRetryAfter: Duration?
        tries: for attempt in 1...max(1, attempts) {
            do {
                return try await body(attempt)
            } catch {
                switch error {
                case .final(let verdict):
                    throw verdict
                case .retryable(let reason, let retryAfter):
                    lastReason = reason
                    lastRetryAfter = retryAfter
                    let waitsTooLong = retryAfter.map { $0 > cap } ?? false
                    guard !waitsTooLong, attempt < attempts else { break tries }
                    try? await Task.sleep(for: retryAfter ?? backoff(after: attempt))
                }
            }
        }
        let seconds = (lastRetryAfter ?? cap).components.seconds
        throw .storeUnavailable(store: store, reason: lastReason, retryAfterSeconds: Int(max(1, seconds)))
    }
}
