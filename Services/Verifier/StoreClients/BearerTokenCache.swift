import Foundation
import NIOConcurrencyHelpers

/// Remembers bearer tokens (App Store Server API JWTs, Google access tokens) until shortly before
/// they expire, so a store call rarely pays for a signature or a token request.
final class BearerTokenCache: Sendable {
    private struct Entry {
        var token: String
        var renewAfter: Date
    }

    private let entries = NIOLockedValueBox<[String: Entry]>([:])

    /// The cached token for `key`, or a new one from `make` (which says how long it is good for).
    /// The token is renewed `margin` before it expires.
    func token(
        for key: String, margin: TimeInterval = 60, now: Date = Date(),
        make: () async throws -> (token: String, lifetime: TimeInterval)
    ) async rethrows -> String {
        if let cached = entries.withLockedValue({ $0[key] }), cached.renewAfter > now {
            return cached.token
        }
        let made = try await make()
        let entry = Entry(token: made.token, renewAfter: now.addingTimeInterval(max(0, made.lifetime - margin)))
        entries.withLockedValue { $0[key] = entry }
        return made.token
    }

    /// Forgets the token for `key` (after the store refused it).
    func forget(_ key: String) {
        _ = entries.withLockedValue { $0.removeValue(forKey: key) }
    }
}
