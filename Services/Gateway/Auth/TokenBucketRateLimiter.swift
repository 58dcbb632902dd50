import NIOConcurrencyHelpers

/// How fast one key may call: a steady rate and a burst on top.
struct RateLimit: Sendable, Equatable {
    /// Tokens added per second.
    var perSecond: Double
    /// Bucket size: the most requests allowed at once after a quiet period.
    var burst: Double
}

/// A token bucket per key, kept in memory by each gateway replica.
///
/// With N replicas behind a load balancer a key gets up to N times its limit; the limit protects the services
/// from a runaway client, it is not a billing quota.
final class TokenBucketRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let buckets = NIOLockedValueBox([String: Bucket]())

    /// Takes one token for `key`; returns `nil` when allowed, or the seconds to wait when not.
    func acquire(key: String, limit: RateLimit, now: ContinuousClock.Instant = .now) -> Int? {
        buckets.withLockedValue { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: limit.burst, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(limit.burst, bucket.tokens + max(0, seconds) * limit.perSecond)
            bucket.updated = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            let wait = (1 - bucket.tokens) / limit.perSecond
            return max(1, Int(wait.rounded(.up)))
        }
    }
}
