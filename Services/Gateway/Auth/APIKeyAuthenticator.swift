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
        entries.withLockedValue { entries in
            if entries.count >= maximumEntries { entries.removeAll(keepingCapacity: true) }
            entries[hash] = Entry(identity: identity, expires: now + cacheTTL)
        }
        return identity
    }

    /// Forgets every cached answer (after a revocation through this replica).
    func invalidateAll() {
        entries.withLockedValue { $0.removeAll() }
    }
}
