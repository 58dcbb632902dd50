import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ShopkeeperDatabase

/// Finds the app a store notification is for, from the store credentials apps have set. An app found is
/// remembered for ``AttributionCache/ttl`` (like the credentials themselves, ``CachedCredentialsRepository``), so
/// a stream of notifications costs no query each; "no app" is never remembered, so credentials just set are used
/// at once.
struct NotificationApps: Sendable {
    let client: PostgresClient
    let logger: Logger
    var cache = AttributionCache(ttl: .seconds(2))

    /// The app whose App Store credentials name `bundleID` (and `appAppleID` when both say one); `requested` (the
    /// notification URL's `?app=`) picks one when several apps share a bundle id.
    func apple(bundleID: String, appAppleID: Int64?, requested: String?) async throws -> String {
        let key = "apple \(bundleID) \(appAppleID.map(String.init) ?? "-")"
        let candidates = try await cache.apps(for: key) {
            try await client.withConnection { connection in
                try await connection.run(
                    AppleApps.self, try PostgresBindings(bundleID, appAppleID), logger: logger
                ) { try $0.decode(String.self) }
            }
        }
        return try Self.pick(candidates, requested: requested, naming: "bundle id \(bundleID)")
    }

    /// The app whose Google Play credentials name `packageName`.
    func google(packageName: String, requested: String?) async throws -> String {
        let candidates = try await cache.apps(for: "google \(packageName)") {
            try await client.withConnection { connection in
                try await connection.run(GoogleApps.self, try PostgresBindings(packageName), logger: logger) {
                    try $0.decode(String.self)
                }
            }
        }
        return try Self.pick(candidates, requested: requested, naming: "package \(packageName)")
    }

    /// The apps an unattributed Stripe event may be for: `requested` (the endpoint URL's `?app=`) alone when given
    /// and it has Stripe credentials, else every app with Stripe credentials (their signing secrets tell which).
    func stripe(requested: String?) async throws -> [String] {
        let candidates = try await cache.apps(for: "stripe") {
            try await client.withConnection { connection in
                try await connection.run(StripeApps.self, PostgresBindings(), logger: logger) {
                    try $0.decode(String.self)
                }
            }
        }
        guard let requested else { return candidates }
        return [try Self.pick(candidates, requested: requested, naming: "Stripe")]
    }

    static func pick(_ candidates: [String], requested: String?, naming subject: String) throws(VerifierError)
        -> String
    {
        if let requested {
            guard candidates.contains(requested) else {
                throw .notificationUnattributed(
                    code: "unknown_app", detail: "App \(requested) has no store credentials for \(subject).")
            }
            return requested
        }
        guard let first = candidates.first else {
            throw .notificationUnattributed(
                code: "unknown_app", detail: "No app has store credentials for \(subject).")
        }
        guard candidates.count == 1 else {
            throw .notificationUnattributed(
                code: "ambiguous_app",
                detail: "\(candidates.count) apps have store credentials for \(subject); "
                    + "add ?app=<app id> to the notification URL set at the store.")
        }
        return first
    }

    private enum AppleApps: PreparedSQL {
        static let sql = """
            SELECT app_id FROM verifier.store_credentials
            WHERE store = 'apple' AND public_view ->> 'bundle_id' = $1::text
              AND ($2::bigint IS NULL OR public_view ->> 'app_apple_id' IS NULL
                   OR (public_view ->> 'app_apple_id')::bigint = $2::bigint)
            ORDER BY app_id
            """
    }

    private enum StripeApps: PreparedSQL {
        static let sql = "SELECT app_id FROM verifier.store_credentials WHERE store = 'stripe' ORDER BY app_id"
    }

    private enum GoogleApps: PreparedSQL {
        static let sql = """
            SELECT app_id FROM verifier.store_credentials
            WHERE store = 'google' AND public_view ->> 'package_name' = $1::text
            ORDER BY app_id
            """
    }
}

/// The apps a store identity (bundle id, package name) was last found to belong to, for a short while.
final class AttributionCache: Sendable {
    let ttl: Duration
    private let entries = NIOLockedValueBox<[String: (apps: [String], loadedAt: ContinuousClock.Instant)]>([:])

    init(ttl: Duration) {
        self.ttl = ttl
    }

    /// The remembered apps for `key`, or those `load` finds (remembered when there are any).
    func apps(for key: String, load: () async throws -> [String]) async throws -> [String] {
        let now = ContinuousClock.now
        let cached = entries.withLockedValue { entries in
            entries[key].flatMap { now - $0.loadedAt < ttl ? $0.apps : nil }
        }
        if let cached { return cached }
        let apps = try await load()
        entries.withLockedValue { entries in
            if apps.isEmpty {
                entries.removeValue(forKey: key)
            } else {
                entries[key] = (apps, now)
            }
        }
        return apps
    }
}
