/// When a failed webhook delivery is tried again: `base * 2^(attempts - 1)`, at most an hour, with equal jitter
/// (half of it fixed, half random) so that deliveries that failed together do not all come back together.
enum WebhookBackoff {
    /// The longest wait between two attempts.
    static let cap: Duration = .seconds(3600)

    /// The wait after the `attempts`-th failed attempt; `random` is uniform in `0...1`.
    static func delay(afterAttempt attempts: Int, base: Duration, random: Double) -> Duration {
        let exponent = min(max(attempts, 1) - 1, 30)
        let baseSeconds = seconds(base)
        let full = min(baseSeconds * Double(1 << exponent), seconds(cap))
        let jittered = full / 2 + full / 2 * min(max(random, 0), 1)
        return .milliseconds(Int64((jittered * 1000).rounded()))
    }

    /// The wait after the `attempts`-th failed attempt, with system randomness.
    static func delay(afterAttempt attempts: Int, base: Duration) -> Duration {
        delay(afterAttempt: attempts, base: base, random: Double.random(in: 0...1))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
