import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// The notification recovery job's cursor on a real database of its own: which apps it reads, that replicas claiming
/// at once never read one app's history twice, that the last seen time only moves forward, and the range each run
/// reads.
@Suite struct NotificationRecoveryRepositoryTests {
    static let logger = Logger(label: "recovery-test")

    func withDatabase(_ body: @Sendable (PostgresClient) async throws -> Void) async throws {
        try await TestDatabase.withMigratedDatabase([VerifierMigrations.runner], logger: Self.logger, body)
    }

    /// Apple credentials whose public view has `environments` and, when `key`, an API key.
    func credentials(_ app: String, environments: [String], key: Bool, on client: PostgresClient) async throws {
        let view = String(
            decoding: try JSONSerialization.data(
                withJSONObject: [
                    "bundle_id": "com.example.\(app)", "environments": environments,
                    "api_key": key ? ["issuer_id": "issuer", "key_id": "KEY"] as Any : NSNull(),
                ] as [String: Any]), as: UTF8.self)
        try await client.query(
            """
            INSERT INTO verifier.store_credentials (app_id, store, public_view, sealed, key_id)
            VALUES (\(app), 'apple', \(view)::jsonb, '\\x00'::bytea, 'k')
            """, logger: Self.logger)
    }

    @Test func appsWithAKeyAreClaimedPerEnvironmentAndConcurrentClaimsNeverOverlap() async throws {
        try await withDatabase { client in
            for index in 0..<12 {
                try await credentials("app\(index)", environments: ["production", "sandbox"], key: true, on: client)
            }
            try await credentials("sandboxonly", environments: ["sandbox"], key: true, on: client)
            try await credentials("keyless", environments: ["production", "sandbox"], key: false, on: client)
            let replicas = [
                NotificationRecoveryPostgresRepository(client: client, logger: Self.logger),
                NotificationRecoveryPostgresRepository(client: client, logger: Self.logger),
            ]
            let claimed = try await withThrowingTaskGroup(of: [RecoveryCursor].self) { group in
                for round in 0..<10 {
                    group.addTask { try await replicas[round % 2].claim(limit: 4, lease: .seconds(3600)) }
                }
                var all: [RecoveryCursor] = []
                for try await batch in group { all += batch }
                return all
            }
            var pairs = claimed.map { "\($0.appID)/\($0.environment.rawValue)" }
            for _ in 0..<20 {
                let more = try await replicas[0].claim(limit: 4, lease: .seconds(3600))
                if more.isEmpty { break }
                pairs += more.map { "\($0.appID)/\($0.environment.rawValue)" }
            }
            #expect(pairs.count == 25, "\(pairs.count) claims")
            #expect(Set(pairs).count == pairs.count, "an app's history was claimed twice")
            #expect(Set(pairs).contains("sandboxonly/sandbox") && !Set(pairs).contains("sandboxonly/production"))
            #expect(!pairs.contains { $0.hasPrefix("keyless/") })
            #expect(claimed.allSatisfy { $0.checkedUntil == nil })
        }
    }

    /// A replica that starts reads at once what ran last an interval ago, but not what another replica holds or read
    /// moments ago; replicas starting together read each pair once between them.
    @Test func aStartingReplicaMakesDueWhatNobodyHoldsOrJustRead() async throws {
        try await withDatabase { client in
            for app in ["idle", "held", "fresh"] {
                try await credentials(app, environments: ["sandbox"], key: true, on: client)
            }
            let repository = NotificationRecoveryPostgresRepository(client: client, logger: Self.logger)
            let first = try await repository.claim(limit: 10, lease: .seconds(3600))
            #expect(first.count == 3)
            for cursor in first where cursor.appID != "held" {
                try await repository.finish(
                    cursor, checkedUntil: Date(), recovered: 0, lastRecoveredAt: nil, nextRunIn: .seconds(900))
            }
            // "idle" last ran long ago (its next run is an interval away); "fresh" ran just now; "held" is claimed.
            try await client.query(
                """
                UPDATE verifier.notification_recovery SET last_run_at = now() - interval '10 minutes'
                WHERE app_id = 'idle'
                """, logger: Self.logger)
            #expect(try await repository.claim(limit: 10, lease: .seconds(3600)).isEmpty)
            let replicas = (0..<4).map { _ in
                NotificationRecoveryPostgresRepository(client: client, logger: Self.logger)
            }
            let claimed = try await withThrowingTaskGroup(of: [RecoveryCursor].self) { group in
                for replica in replicas {
                    group.addTask {
                        try await replica.makeDue(unlessRunWithin: .seconds(30))
                        return try await replica.claim(limit: 10, lease: .seconds(3600))
                    }
                }
                var all: [RecoveryCursor] = []
                for try await batch in group { all += batch }
                return all
            }
            #expect(claimed.map(\.appID) == ["idle"], "\(claimed)")
        }
    }

    @Test func theLastSeenTimeOnlyMovesForwardAndAFailureKeepsIt() async throws {
        try await withDatabase { client in
            try await credentials("app", environments: ["sandbox"], key: true, on: client)
            let repository = NotificationRecoveryPostgresRepository(client: client, logger: Self.logger)
            let cursor = try #require(try await repository.claim(limit: 10, lease: .seconds(60)).first)
            let seen = Date(timeIntervalSince1970: 1_800_000_000)
            try await repository.finish(
                cursor, checkedUntil: seen, recovered: 2, lastRecoveredAt: seen.addingTimeInterval(-60),
                nextRunIn: .zero)
            // A late replica that read an older range does not move it back.
            try await repository.finish(
                cursor, checkedUntil: seen.addingTimeInterval(-600), recovered: 0, lastRecoveredAt: nil,
                nextRunIn: .zero)
            try await repository.fail(cursor, error: "store_unavailable", nextRunIn: .zero)
            let again = try #require(try await repository.claim(limit: 10, lease: .seconds(60)).first)
            #expect(again.checkedUntil == seen)
            let status = try #require(try await repository.status(appID: "app").first)
            #expect(status.recovered == 2)
            #expect(status.lastRecoveredAt == seen.addingTimeInterval(-60))
            #expect(status.lastError == "store_unavailable")
            // Claimed for a minute: no other claim gets it meanwhile.
            #expect(try await repository.claim(limit: 10, lease: .seconds(60)).isEmpty)
            // Handed back by a replica shutting down: due again at once, the cursor and figures as they were.
            try await repository.release(again)
            let released = try #require(try await repository.claim(limit: 10, lease: .seconds(60)).first)
            #expect(released.checkedUntil == seen)
            #expect(try await repository.status(appID: "app").first?.recovered == 2)
        }
    }

    /// The last seen time (seconds from now; `nil` before the first run), the environment, and where a run starts: a
    /// week back on the first run, then from the cursor less the overlap, never before Apple's history starts.
    static let windows: [(TimeInterval?, StoreEnvironment, TimeInterval)] = [
        (nil, .production, -7 * 86_400),
        (-3600, .production, -3600 - 600),
        (-400 * 86_400, .production, -180 * 86_400 + 60),
        (-10 * 86_400, .sandbox, -10 * 86_400 - 600),
        (-40 * 86_400, .sandbox, -30 * 86_400 + 60),
        (nil, .sandbox, -7 * 86_400),
    ]

    @Test(arguments: windows)
    func eachRunReadsFromTheLastSeenTimeLessTheOverlap(
        checked: TimeInterval?, environment: StoreEnvironment, expectedStart: TimeInterval
    ) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let settings = NotificationRecoverySettings(interval: .seconds(900), overlap: .seconds(600))
        let cursor = RecoveryCursor(
            appID: "app", environment: environment, checkedUntil: checked.map { now.addingTimeInterval($0) })
        let (start, end) = settings.window(for: cursor, now: now)
        #expect(start == now.addingTimeInterval(expectedStart))
        #expect(end == now)
    }
}
