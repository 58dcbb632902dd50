import Foundation
import NIOConcurrencyHelpers

/// Remembers each app's credentials for a short while, so the purchase path does not read and unseal
/// them from the database on every request. A change made through this replica shows at once; one
/// made through another replica within ``ttl``.
final class CachedCredentialsRepository: CredentialsRepository {
    private struct Entry {
        var apple: AppleCredentials??
        var google: GoogleCredentials??
        var stripe: StripeCredentials??
        var loadedAt: ContinuousClock.Instant
    }

    private let base: any CredentialsRepository
    private let ttl: Duration
    private let entries = NIOLockedValueBox<[String: Entry]>([:])

    init(_ base: any CredentialsRepository, ttl: Duration) {
        self.base = base
        self.ttl = ttl
    }

    func apple(appID: String) async throws -> AppleCredentials? {
        if let cached = fresh(appID)?.apple { return cached }
        let loaded = try await base.apple(appID: appID)
        update(appID) { $0.apple = .some(loaded) }
        return loaded
    }

    func google(appID: String) async throws -> GoogleCredentials? {
        if let cached = fresh(appID)?.google { return cached }
        let loaded = try await base.google(appID: appID)
        update(appID) { $0.google = .some(loaded) }
        return loaded
    }

    func stripe(appID: String) async throws -> StripeCredentials? {
        if let cached = fresh(appID)?.stripe { return cached }
        let loaded = try await base.stripe(appID: appID)
        update(appID) { $0.stripe = .some(loaded) }
        return loaded
    }

    func saveStripe(_ credentials: StripeCredentials, appID: String) async throws {
        try await base.saveStripe(credentials, appID: appID)
        forget(appID)
    }

    func saveApple(_ credentials: AppleCredentials, appID: String) async throws {
        try await base.saveApple(credentials, appID: appID)
        forget(appID)
    }

    func saveGoogle(_ credentials: GoogleCredentials, appID: String) async throws {
        try await base.saveGoogle(credentials, appID: appID)
        forget(appID)
    }

    func delete(store: CredentialStore, appID: String) async throws -> Bool {
        defer { forget(appID) }
        return try await base.delete(store: store, appID: appID)
    }

    private func fresh(_ appID: String) -> Entry? {
        let now = ContinuousClock.now
        return entries.withLockedValue { entries in
            guard let entry = entries[appID], now - entry.loadedAt < ttl else { return nil }
            return entry
        }
    }

    private func update(_ appID: String, _ change: (inout Entry) -> Void) {
        let now = ContinuousClock.now
        entries.withLockedValue { entries in
            var entry = entries[appID].flatMap { now - $0.loadedAt < ttl ? $0 : nil } ?? Entry(loadedAt: now)
            change(&entry)
            entries[appID] = entry
        }
    }

    private func forget(_ appID: String) {
        _ = entries.withLockedValue { $0.removeValue(forKey: appID) }
    }
}
