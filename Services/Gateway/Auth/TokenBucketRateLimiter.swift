import NIOConcurrencyHelpers

/// How fast one key may call: a steady rate and a burst on top.
struct RateLimit: Sendable, Equatable {
    /// Tokens added per second.
    var perSecond: Double
    /// Bucket size: the most requests allowed at once after a quiet period.
    var burst: Double
}

/// Token buckets kept in memory by each gateway replica: one per key (a secret key's limit, a public key's ceiling
/// for all its clients together), one per public key and client address (``ClientKey``), and one per public key,
/// client address and customer the path names (``RateLimits``: many phones share one address behind carrier NAT,
/// each with its own customer).
///
/// With N replicas behind a load balancer each enforces 1/N of the configured limits (`SHOPKEEPER_GATEWAY_REPLICAS`,
/// ``RateLimit/share(ofReplicas:variable:)``), so together they admit what was configured; the limits protect the
/// services and an app's other users from a runaway client, they are not a billing quota.
///
/// Memory stays bounded whatever addresses callers come from: a client's bucket exists only while it is not full
/// (a full bucket is the same as none), and only a request that passed both limits takes a token from one, so each
/// public key has at most about `ceiling rate x client burst / client rate + ceiling burst` of them. Full buckets are
/// dropped whenever the table has doubled since the last sweep, and it never holds more than `maximumClients`: past
/// that, requests from new clients are held to the key's ceiling alone until buckets refill and are swept.
final class TokenBucketRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant

        /// A bucket after a quiet period.
        static func full(_ limit: RateLimit, at now: ContinuousClock.Instant) -> Bucket {
            Bucket(tokens: limit.burst, updated: now)
        }

        /// Adds the tokens earned since the last update.
        mutating func refill(_ limit: RateLimit, now: ContinuousClock.Instant) {
            let elapsed = now - updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            tokens = min(limit.burst, tokens + max(0, seconds) * limit.perSecond)
            updated = now
        }

        /// Whole seconds until a token is there (at least 1, for `Retry-After`).
        func secondsUntilToken(_ limit: RateLimit) -> Int {
            max(1, Int(((1 - tokens) / limit.perSecond).rounded(.up)))
        }
    }

    private struct ClientBucketKey: Hashable {
        var key: String
        var client: ClientKey
        /// The customer the request names, for a bucket of one customer behind the address; `nil` for the address's.
        var customer: String?
    }

    private struct ClientBucket {
        var bucket: Bucket
        /// When it will be full again (and can be forgotten).
        var fullAt: ContinuousClock.Instant

        /// A bucket a request takes a token from, and its limit.
        struct Limit {
            var client: ClientKey
            var customer: String?
            var limit: RateLimit
        }
    }

    private struct State {
        var keys: [String: Bucket] = [:]
        var clients: [ClientBucketKey: ClientBucket] = [:]
        /// The size of ``clients`` at which full buckets are next swept out.
        var nextSweepAt: Int
        /// With the table at its maximum, sweeps are tried at most once a second.
        var sweepNotBefore: ContinuousClock.Instant?
    }

    /// The most client buckets kept (`SHOPKEEPER_RATE_LIMIT_CLIENTS_MAX`).
    let maximumClients: Int
    private let state: NIOLockedValueBox<State>
    private static let firstSweepAt = 1024

    init(maximumClients: Int = 100_000) {
        self.maximumClients = maximumClients
        self.state = NIOLockedValueBox(State(nextSweepAt: min(Self.firstSweepAt, maximumClients)))
    }

    /// Takes one token for `identity` under `limits`, counting a public key's request against its client address
    /// and, when the request names a customer in its path, against that customer behind the address too; returns
    /// `nil` when allowed, or the seconds to wait (`Retry-After`) when not.
    func acquire(
        for identity: KeyIdentity, client: ClientKey, customer: String? = nil, limits: RateLimits,
        now: ContinuousClock.Instant = .now
    ) -> Int? {
        switch identity.kind {
        case .secret: return acquire(key: identity.keyID, limit: limits.secretKeys, now: now)
        case .public:
            var buckets = [ClientBucket.Limit(client: client, customer: nil, limit: limits.publicAddresses)]
            if let customer {
                buckets.append(ClientBucket.Limit(client: client, customer: customer, limit: limits.publicClients))
            }
            return acquire(key: identity.keyID, buckets: buckets, ceiling: limits.publicKeys, now: now)
        }
    }

    /// Takes one token from `key`'s bucket; returns `nil` when allowed, or the seconds to wait when not.
    func acquire(key: String, limit: RateLimit, now: ContinuousClock.Instant = .now) -> Int? {
        state.withLockedValue { state in
            var bucket = state.keys[key] ?? .full(limit, at: now)
            bucket.refill(limit, now: now)
            defer { state.keys[key] = bucket }
            guard bucket.tokens >= 1 else { return bucket.secondsUntilToken(limit) }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Takes one token from `client`'s bucket of `key` and one from `key`'s ceiling, both or neither.
    func acquire(
        key: String, client: ClientKey, clientLimit: RateLimit, ceiling: RateLimit,
        now: ContinuousClock.Instant = .now
    ) -> Int? {
        acquire(
            key: key, buckets: [ClientBucket.Limit(client: client, customer: nil, limit: clientLimit)],
            ceiling: ceiling, now: now)
    }

    /// Takes one token from each of `buckets` of `key` and one from `key`'s ceiling, all or none: a refused request
    /// costs the app's other clients nothing.
    private func acquire(
        key: String, buckets: [ClientBucket.Limit], ceiling: RateLimit, now: ContinuousClock.Instant
    ) -> Int? {
        state.withLockedValue { state in
            var shared = state.keys[key] ?? .full(ceiling, at: now)
            shared.refill(ceiling, now: now)
            state.keys[key] = shared
            var owns: [(key: ClientBucketKey, bucket: Bucket, known: Bool)] = []
            for limit in buckets {
                let clientKey = ClientBucketKey(key: key, client: limit.client, customer: limit.customer)
                let known = state.clients[clientKey]
                var own = known?.bucket ?? .full(limit.limit, at: now)
                own.refill(limit.limit, now: now)
                if own.tokens < 1 {
                    state.clients[clientKey]?.bucket = own
                    return own.secondsUntilToken(limit.limit)
                }
                owns.append((clientKey, own, known != nil))
            }
            guard shared.tokens >= 1 else { return shared.secondsUntilToken(ceiling) }
            shared.tokens -= 1
            state.keys[key] = shared
            for ((clientKey, own, known), limit) in zip(owns, buckets) {
                // With the table full of clients still limited, a new one is held to the others and the ceiling.
                if !known && !Self.makeRoom(&state, maximum: maximumClients, now: now) { continue }
                var taken = own
                taken.tokens -= 1
                let fullAt = now + .seconds((limit.limit.burst - taken.tokens) / limit.limit.perSecond)
                state.clients[clientKey] = ClientBucket(bucket: taken, fullAt: fullAt)
            }
            return nil
        }
    }

    /// Whether a new client bucket may be added, after sweeping out full ones when the table has grown enough.
    private static func makeRoom(_ state: inout State, maximum: Int, now: ContinuousClock.Instant) -> Bool {
        guard state.clients.count >= state.nextSweepAt else { return true }
        if let notBefore = state.sweepNotBefore, now < notBefore { return false }
        state.clients = state.clients.filter { $0.value.fullAt > now }
        state.nextSweepAt = min(maximum, max(firstSweepAt, state.clients.count * 2))
        guard state.clients.count < maximum else {
            state.sweepNotBefore = now + .seconds(1)
            return false
        }
        state.sweepNotBefore = nil
        return true
    }

    /// How many client buckets are kept (what the memory bound is about).
    var clientBucketCount: Int {
        state.withLockedValue { $0.clients.count }
    }
}
