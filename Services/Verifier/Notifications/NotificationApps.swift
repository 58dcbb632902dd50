import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// Finds the app a store notification is for, from the store credentials apps have set.
struct NotificationApps: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// The app whose App Store credentials name `bundleID` (and `appAppleID` when both say one); `requested` (the
    /// notification URL's `?app=`) picks one when several apps share a bundle id.
    func apple(bundleID: String, appAppleID: Int64?, requested: String?) async throws -> String {
        let candidates = try await client.withConnection { connection in
            try await connection.run(
                AppleApps.self, try PostgresBindings(bundleID, appAppleID), logger: logger
            ) { try $0.decode(String.self) }
        }
        return try Self.pick(candidates, requested: requested, naming: "bundle id \(bundleID)")
    }

    /// The app whose Google Play credentials name `packageName`.
    func google(packageName: String, requested: String?) async throws -> String {
        let candidates = try await client.withConnection { connection in
            try await connection.run(GoogleApps.self, try PostgresBindings(packageName), logger: logger) {
                try $0.decode(String.self)
            }
        }
        return try Self.pick(candidates, requested: requested, naming: "package \(packageName)")
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

    private enum GoogleApps: PreparedSQL {
        static let sql = """
            SELECT app_id FROM verifier.store_credentials
            WHERE store = 'google' AND public_view ->> 'package_name' = $1::text
            ORDER BY app_id
            """
    }
}
