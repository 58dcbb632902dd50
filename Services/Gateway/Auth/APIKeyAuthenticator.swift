import NIOConcurrencyHelpers

/// Turns an API key into its identity, remembering answers for a short time so the hot path rarely reaches the
/// database. A revoked key stops working within `cacheTTL` on every replica.
final class APIKeyAuthenticator: Sendable {
    private struct Entry {
        var identity: KeyIdentity?
        var expires: ContinuousClock.Instant
    }

    private let repository: any AppRepository
    private let cacheTTL: Duration
    private let entries = NIOLockedValueBox([[UInt8]: Entry]())
    private let maximumEntries = 100_000

    init(repository: any AppRepository, cacheTTL: Duration) {
        self.repository = repository
        self.cacheTTL = cacheTTL
    }

    /// The identity of `key`, or `nil` when it is malformed, unknown or revoked.
    func identity(of key: String) async throws -> KeyIdentity? {
        guard APIKey.kind(of: key) != nil else { return nil }
        let hash = APIKey.hash(key)
        let now = ContinuousClock.now
        if let entry = entries.withLockedValue({ $0[hash] }), entry.expires > now {
            return entry.identity
        }
        let identity = try await repository.identity(keyHash: hash)
        remember(hash: hash, identity: identity, now: now)
        return identity
    }

    /// The identity of `key` when a fresh answer is remembered and names a valid key; `nil` when the answer needs
    /// the database or says no (the caller then takes the path that asks, and renders the refusal).
    func cachedIdentity(of key: String, now: ContinuousClock.Instant = .now) -> KeyIdentity? {
        guard APIKey.kind(of: key) != nil else { return nil }
        let hash = APIKey.hash(key)
        guard let entry = entries.withLockedValue({ $0[hash] }), entry.expires > now else { return nil }
        return entry.identity
    }

    private func remember(hash: [UInt8], identity: KeyIdentity?, now: ContinuousClock.Instant) {
        entries.withLockedValue { entries in
            if entries.count >= maximumEntries { entries.removeAll(keepingCapacity: true) }
            entries[hash] = Entry(identity: identity, expires: now + cacheTTL)
        }
    }

    /// Forgets every cached answer (after a revocation through this replica).
    func invalidateAll() {
        entries.withLockedValue { $0.removeAll() }
    }
}
