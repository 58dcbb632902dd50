import NIOConcurrencyHelpers
import ShopkeeperHTTP
import Synchronization

/// Turns an API key into its identity, remembering answers for a short time so the hot path rarely reaches the
/// database. A revoked key stops working within `cacheTTL` on every replica.
///
/// Lookups are single-flight: when a key's answer is missing or expired, the first request asks the database and
/// every request for the same key that arrives meanwhile waits for that one answer, instead of each connection
/// querying at the moment a popular key expires. A lookup that fails is shared as it is: every waiting request gets
/// the same error (a 503 `database_unavailable` when the database is down), nothing is remembered, and the next
/// request after it starts a new lookup. A revocation through this replica (``invalidateAll()``) forgets the
/// answers and detaches lookups in flight: later requests ask again, and a detached lookup's answer is not kept.
final class APIKeyAuthenticator: Sendable {
    private struct Entry {
        var identity: KeyIdentity?
        var expires: ContinuousClock.Instant
    }

    /// A lookup in progress: its task, the generation it was started in, and how many requests wait on it.
    private struct Flight {
        var task: Task<KeyIdentity?, any Error>
        var generation: UInt64
        var waiting: Int
    }

    private struct State {
        var entries: [[UInt8]: Entry] = [:]
        var flights: [[UInt8]: Flight] = [:]
        /// Advanced by ``invalidateAll()``: a lookup started before it may have read a key since revoked.
        var generation: UInt64 = 0
    }

    /// A cached answer, or the lookup to wait for.
    private enum Answer {
        case cached(KeyIdentity?)
        case lookup(Task<KeyIdentity?, any Error>)
    }

    private let repository: any AppRepository
    private let cacheTTL: Duration
    private let state = NIOLockedValueBox(State())
    /// ``State/generation``, readable without the lock (written under it): what a ``Remembered`` answer is checked
    /// against.
    private let publishedGeneration = Atomic<UInt64>(0)
    private let maximumEntries = 100_000
    /// A remembered answer (either path) or a database lookup, started or joined (the router path).
    private let metrics = CacheMetrics(cache: "api_key")

    init(repository: any AppRepository, cacheTTL: Duration) {
        self.repository = repository
        self.cacheTTL = cacheTTL
    }

    /// The identity of `key`, or `nil` when it is malformed, unknown or revoked.
    func identity(of key: String) async throws -> KeyIdentity? {
        guard APIKey.kind(of: key) != nil else { return nil }
        let hash = APIKey.hash(key)
        let now = ContinuousClock.now
        let answer = state.withLockedValue { state -> Answer in
            if let entry = state.entries[hash], entry.expires > now { return .cached(entry.identity) }
            if var flight = state.flights[hash] {
                flight.waiting += 1
                state.flights[hash] = flight
                return .lookup(flight.task)
            }
            let generation = state.generation
            // Not cancelled with the request that started it: the others waiting on it still need the answer.
            let task = Task { try await self.lookUp(hash: hash, generation: generation) }
            state.flights[hash] = Flight(task: task, generation: generation, waiting: 1)
            return .lookup(task)
        }
        switch answer {
        case .cached(let identity):
            metrics.record(hit: true)
            return identity
        case .lookup(let task):
            metrics.record(hit: false)
            return try await task.value
        }
    }

    /// Asks the database, then remembers a successful answer (unless a revocation came meanwhile) and ends the
    /// flight, so that the next request after a failure asks again.
    private func lookUp(hash: [UInt8], generation: UInt64) async throws -> KeyIdentity? {
        let result: Result<KeyIdentity?, any Error>
        do {
            result = .success(try await repository.identity(keyHash: hash))
        } catch {
            result = .failure(error)
        }
        let now = ContinuousClock.now
        state.withLockedValue { state in
            if state.flights[hash]?.generation == generation { state.flights[hash] = nil }
            guard case .success(let identity) = result, state.generation == generation else { return }
            if state.entries.count >= maximumEntries { state.entries.removeAll(keepingCapacity: true) }
            state.entries[hash] = Entry(identity: identity, expires: now + cacheTTL)
        }
        return try result.get()
    }

    /// The identity of `key` when a fresh answer is remembered and names a valid key; `nil` when the answer needs
    /// the database or says no (the caller then takes the path that asks, and renders the refusal).
    func cachedIdentity(of key: String, now: ContinuousClock.Instant = .now) -> KeyIdentity? {
        remembered(key, now: now)?.identity
    }

    /// A fresh cached answer for `key` that names a valid key, for a client connection to keep
    /// (``identity(of:rememberedIn:now:)``); `nil` as for ``cachedIdentity(of:now:)``.
    func remembered(_ key: String, now: ContinuousClock.Instant = .now) -> Remembered? {
        guard APIKey.kind(of: key) != nil else { return nil }
        let hash = APIKey.hash(key)
        let found = state.withLockedValue { state in
            state.entries[hash].map { (entry: $0, generation: state.generation) }
        }
        guard let found, found.entry.expires > now, let identity = found.entry.identity else { return nil }
        // Only hits are counted here: a request this path cannot answer goes on to ``identity(of:)``, which counts it.
        metrics.record(hit: true)
        return Remembered(key: key, identity: identity, expires: found.entry.expires, generation: found.generation)
    }

    /// The identity `remembered` holds when `key` is its key and it is still good: not expired, and no revocation
    /// through this replica since (``invalidateAll()``). No hash of the key and no lock: what a connection's
    /// requests after its first cost. `nil` sends the caller to ``remembered(_:now:)``.
    func identity(of key: String, rememberedIn remembered: Remembered, now: ContinuousClock.Instant = .now)
        -> KeyIdentity?
    {
        guard remembered.expires > now, remembered.generation == publishedGeneration.load(ordering: .acquiring),
            Self.equalInConstantTime(key, remembered.key)
        else { return nil }
        metrics.record(hit: true)
        return remembered.identity
    }

    /// A cached answer a client connection keeps for the key its requests present (``ChannelProxy``): the same
    /// answer, expiry and revocation rule as the shared cache, without its hash and lock.
    struct Remembered: Sendable {
        let key: String
        let identity: KeyIdentity
        let expires: ContinuousClock.Instant
        /// ``APIKeyAuthenticator/State/generation`` when it was taken: a revocation since makes it stale.
        let generation: UInt64
    }

    /// Whether `a` and `b` are the same bytes, in a time that depends on their lengths only (a key, compared with
    /// one a connection presented before).
    private static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        // Read in place (native strings are contiguous): iterating the two UTF-8 views showed in the profile.
        var (a, b) = (a, b)
        return a.withUTF8 { a in
            b.withUTF8 { b in
                guard a.count == b.count else { return false }
                var difference: UInt8 = 0
                for index in 0..<a.count { difference |= a[index] ^ b[index] }
                return difference == 0
            }
        }
    }

    /// How many requests wait on the database lookup of `key` now (0 when none is in flight): what single-flight
    /// saves, and what a test waits for.
    func waitingForLookup(of key: String) -> Int {
        let hash = APIKey.hash(key)
        return state.withLockedValue { $0.flights[hash]?.waiting ?? 0 }
    }

    /// Forgets every cached answer (after a revocation through this replica), and detaches the lookups in flight:
    /// they may have read the key before it was revoked.
    func invalidateAll() {
        state.withLockedValue { state in
            state.entries.removeAll()
            state.flights.removeAll()
            state.generation &+= 1
            publishedGeneration.store(state.generation, ordering: .releasing)
        }
    }

    /// Runs `change`, a write to what authenticates an app's calls (a key, a token secret, the customer boundary),
    /// then ``invalidateAll()`` so that the next request through this replica sees it; answers what `change` answered.
    func invalidatingAll<Changed>(after change: () async throws -> Changed) async throws -> Changed {
        let changed = try await change()
        invalidateAll()
        return changed
    }
}
