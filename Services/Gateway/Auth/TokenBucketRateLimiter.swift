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
            let seconds =
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
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

        /// `own` with one token taken, and when it will be full again under `limit`.
        static func taking(from own: Bucket, _ limit: RateLimit, now: ContinuousClock.Instant)
            -> ClientBucket
        {
            var taken = own
            taken.tokens -= 1
            return ClientBucket(
                bucket: taken, fullAt: now + .seconds((limit.burst - taken.tokens) / limit.perSecond))
        }

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
            return acquire(
                key: identity.keyID,
                address: ClientBucket.Limit(client: client, customer: nil, limit: limits.publicAddresses),
                customer: customer.map {
                    ClientBucket.Limit(client: client, customer: $0, limit: limits.publicClients)
                },
                ceiling: limits.publicKeys, now: now)
        }
    }

    /// Takes one token from `key`'s bucket; returns `nil` when allowed, or the seconds to wait when not.
    func acquire(key: String, limit: RateLimit, now: ContinuousClock.Instant = .now) -> Int? {
        state.withLockedValue { state in
            // Changed in place: one hash of the key.
            Self.take(from: &state.keys[key, default: .full(limit, at: now)], limit: limit, now: now)
        }
    }

    /// Refills `bucket` and takes a token from it; `nil` when there was one, or the seconds to wait.
    private static func take(
        from bucket: inout Bucket, limit: RateLimit, now: ContinuousClock.Instant
    ) -> Int? {
        bucket.refill(limit, now: now)
        guard bucket.tokens >= 1 else { return bucket.secondsUntilToken(limit) }
        bucket.tokens -= 1
        return nil
    }

    /// Takes one token from `client`'s bucket of `key` and one from `key`'s ceiling, both or neither.
    func acquire(
        key: String, client: ClientKey, clientLimit: RateLimit, ceiling: RateLimit,
        now: ContinuousClock.Instant = .now
    ) -> Int? {
        acquire(
            key: key, address: ClientBucket.Limit(client: client, customer: nil, limit: clientLimit),
            customer: nil,
            ceiling: ceiling, now: now)
    }

    /// Takes one token from the `address` bucket of `key`, from its `customer` bucket when given, and one from
    /// `key`'s ceiling, all or none: a refused request costs the app's other clients nothing. Without an allocation,
    /// and with one hash of each bucket's key when the buckets exist (the steady state).
    private func acquire(
        key: String, address: ClientBucket.Limit, customer: ClientBucket.Limit?, ceiling: RateLimit,
        now: ContinuousClock.Instant
    ) -> Int? {
        state.withLockedValue { state in
            Self.acquire(
                &state, key: key, address: address, customer: customer, ceiling: ceiling,
                maximumClients: maximumClients, now: now)
        }
    }

    /// ``acquire(key:address:customer:ceiling:now:)`` under the lock. Buckets are found once and changed where they
    /// are (by their index in the table, which stays valid until a bucket is added or the table swept).
    private static func acquire(
        _ state: inout State, key: String, address: ClientBucket.Limit, customer: ClientBucket.Limit?,
        ceiling: RateLimit, maximumClients: Int, now: ContinuousClock.Instant
    ) -> Int? {
        let sharedIndex = state.keys.index(forKey: key)
        var shared = sharedIndex.map { state.keys.values[$0] } ?? .full(ceiling, at: now)
        shared.refill(ceiling, now: now)
        // Kept refilled whatever the answer (the key table is not changed meanwhile: its index stays valid).
        defer {
            if let sharedIndex {
                state.keys.values[sharedIndex] = shared
            } else {
                state.keys[key] = shared
            }
        }
        let first: Held
        switch hold(address, of: key, in: &state, now: now) {
        case .held(let held): first = held
        case .refused(let retryAfter): return retryAfter
        }
        var second: Held?
        if let customer {
            switch hold(customer, of: key, in: &state, now: now) {
            case .held(let held): second = held
            case .refused(let retryAfter): return retryAfter
            }
        }
        guard shared.tokens >= 1 else { return shared.secondsUntilToken(ceiling) }
        shared.tokens -= 1
        let firstTaken = first.taken(now: now)
        let secondTaken = second?.taken(now: now)
        // Known buckets first, in place: adding a new one (or sweeping) moves the others.
        if let index = first.index { state.clients.values[index] = firstTaken }
        if let index = second?.index, let secondTaken { state.clients.values[index] = secondTaken }
        // With the table full of clients still limited, a new one is held to the others and the ceiling.
        if first.index == nil && makeRoom(&state, maximum: maximumClients, now: now) {
            state.clients[first.key] = firstTaken
        }
        if let second, second.index == nil, let secondTaken,
            makeRoom(&state, maximum: maximumClients, now: now)
        {
            state.clients[second.key] = secondTaken
        }
        return nil
    }

    /// A client bucket a request would take a token from: its key, where it is in the table (`nil` for a new one),
    /// refilled, and its limit.
    private struct Held {
        var key: ClientBucketKey
        var index: [ClientBucketKey: ClientBucket].Index?
        var own: Bucket
        var limit: RateLimit

        /// The bucket with the token taken.
        func taken(now: ContinuousClock.Instant) -> ClientBucket {
            ClientBucket.taking(from: own, limit, now: now)
        }
    }

    private enum Hold {
        case held(Held)
        /// No token: the seconds to wait.
        case refused(Int)
    }

    /// `limit`'s bucket of `key`, found once and refilled; refused when it has no token (the refill kept).
    private static func hold(
        _ limit: ClientBucket.Limit, of key: String, in state: inout State, now: ContinuousClock.Instant
    ) -> Hold {
        let clientKey = ClientBucketKey(key: key, client: limit.client, customer: limit.customer)
        let index = state.clients.index(forKey: clientKey)
        var own = index.map { state.clients.values[$0].bucket } ?? .full(limit.limit, at: now)
        own.refill(limit.limit, now: now)
        guard own.tokens >= 1 else {
            if let index { state.clients.values[index].bucket = own }
            return .refused(own.secondsUntilToken(limit.limit))
        }
        return .held(Held(key: clientKey, index: index, own: own, limit: limit.limit))
    }

    /// Whether a new client bucket may be added, after sweeping out full ones when the table has grown enough.
    private static func makeRoom(_ state: inout State, maximum: Int, now: ContinuousClock.Instant)
        -> Bool
    {
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
