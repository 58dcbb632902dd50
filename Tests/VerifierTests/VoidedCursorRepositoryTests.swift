import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// The voided-purchases poller's cursors on a real database of their own: every app with Google credentials gets
/// one, replicas claiming at once never poll one app together, a replica whose lease was taken cannot move the
/// cursor, and what is saved is what the next claim reads.
@Suite struct VoidedCursorRepositoryTests {
    static let logger = Logger(label: "voided-cursor-test")

    func withDatabase(_ body: @Sendable (PostgresClient) async throws -> Void) async throws {
        try await TestDatabase.withMigratedDatabase([VerifierMigrations.runner], logger: Self.logger, body)
    }

    /// A credentials row for `app` and `store` (the poller reads only that it exists).
    func credentials(_ app: String, store: String = "google", on client: PostgresClient) async throws {
        try await client.query(
            """
            INSERT INTO verifier.store_credentials (app_id, store, public_view, sealed, key_id)
            VALUES (\(app), \(store), '{}'::jsonb, '\\x00'::bytea, 'k')
            """, logger: Self.logger)
    }

    @Test func concurrentClaimsNeverPollOneAppTwiceAndOnlyGoogleAppsArePolled() async throws {
        try await withDatabase { client in
            for index in 0..<30 { try await credentials("app-\(index)", on: client) }
            try await credentials("apple-only", store: "apple", on: client)
            let replicas = (0..<2).map { _ in VoidedCursorPostgresRepository(client: client, logger: Self.logger) }
            let claimed = try await withThrowingTaskGroup(of: [VoidedCursorLease].self) { group in
                for round in 0..<12 {
                    group.addTask { try await replicas[round % 2].claim(limit: 4, lease: .seconds(3600)) }
                }
                var all: [VoidedCursorLease] = []
                for try await batch in group { all += batch }
                return all
            }
            let apps = claimed.map(\.appID)
            #expect(Set(apps).count == apps.count, "an app was claimed twice: \(apps.sorted())")
            #expect(!apps.contains("apple-only"))
            // What the burst left is claimed next; then nothing is due until the leases run out.
            var rest = try await replicas[0].claim(limit: 100, lease: .seconds(3600))
            #expect(Set(apps).isDisjoint(with: rest.map(\.appID)))
            rest += try await replicas[1].claim(limit: 100, lease: .seconds(3600))
            #expect(Set(apps + rest.map(\.appID)) == Set((0..<30).map { "app-\($0)" }))
            #expect(try await replicas[0].claim(limit: 100, lease: .seconds(3600)).isEmpty)
            // A new cursor starts empty: 30 days back.
            #expect(claimed.allSatisfy { $0.cursor == VoidedPurchasesCursor() })
        }
    }

    @Test func aSavedCursorIsReadBackAndALostLeaseCannotMoveIt() async throws {
        try await withDatabase { client in
            try await credentials("app-a", on: client)
            let repository = VoidedCursorPostgresRepository(client: client, logger: Self.logger)
            let first = try #require(try await repository.claim(limit: 1, lease: .milliseconds(1)).first)
            let page = VoidedPurchasesCursor(nextStartMillis: 100, windowEndMillis: 200, pageToken: "p2")
            #expect(
                try await repository.save(
                    first, cursor: page, found: 3, lastVoidedMillis: 150, extendBy: .milliseconds(1)))
            // The lease ran out; another replica takes the app and reads the saved page.
            try await Task.sleep(for: .milliseconds(20))
            let second = try #require(try await repository.claim(limit: 1, lease: .seconds(3600)).first)
            #expect(second.appID == "app-a" && second.cursor == page && second.leaseID != first.leaseID)
            // The first replica can no longer save or release it.
            #expect(
                !(try await repository.save(
                    first, cursor: VoidedPurchasesCursor(), found: 1, lastVoidedMillis: nil, extendBy: .seconds(1))))
            try await repository.release(first, pause: .zero, error: "late")
            #expect(try await repository.claim(limit: 1, lease: .seconds(3600)).isEmpty)
            // The holder finishes the window and releases it: polled again after the pause.
            let done = VoidedPurchasesCursor(nextStartMillis: 190)
            #expect(
                try await repository.save(
                    second, cursor: done, found: 0, lastVoidedMillis: 120, extendBy: .seconds(3600)))
            try await repository.release(second, pause: .zero, error: nil)
            let third = try #require(try await repository.claim(limit: 1, lease: .seconds(3600)).first)
            #expect(third.cursor == done)
            let rows = try await client.query(
                """
                SELECT found, last_voided_ms, last_error IS NULL, polled_at IS NOT NULL
                FROM verifier.google_voided_cursors WHERE app_id = 'app-a'
                """, logger: Self.logger)
            for try await (found, last, noError, polled) in rows.decode((Int64, Int64?, Bool, Bool).self) {
                #expect(found == 3 && last == 150 && noError && polled)
            }
        }
    }

    @Test func aHandedBackLeaseIsDueAgainAtOnceAndKeepsItsLastPoll() async throws {
        try await withDatabase { client in
            try await credentials("app-b", on: client)
            let repository = VoidedCursorPostgresRepository(client: client, logger: Self.logger)
            let first = try #require(try await repository.claim(limit: 1, lease: .seconds(3600)).first)
            try await repository.release(first, pause: .zero, error: "the store did not answer")
            let second = try #require(try await repository.claim(limit: 1, lease: .seconds(3600)).first)
            // A replica shutting down hands it back: another takes it at once; the last poll's error stays.
            try await repository.handBack(second)
            let third = try #require(try await repository.claim(limit: 1, lease: .seconds(3600)).first)
            #expect(third.appID == "app-b" && third.leaseID != second.leaseID)
            let rows = try await client.query(
                "SELECT last_error FROM verifier.google_voided_cursors WHERE app_id = 'app-b'", logger: Self.logger)
            for try await error in rows.decode(String?.self) { #expect(error == "the store did not answer") }
        }
    }

    @Test func aVoidedOrderIsKnownByItsOrderOrItsSubscription() async throws {
        try await withDatabase { client in
            func fact(_ id: String, original: String, type: String?, revoked: Bool) async throws {
                let revokedAt: Date? = revoked ? Date() : nil
                try await client.query(
                    """
                    INSERT INTO verifier.transactions (
                        store, transaction_id, app_id, environment, original_transaction_id, store_product_id, type,
                        quantity, purchase_date, revocation_date, fact, proof_kind, raw_proof)
                    VALUES ('play_store', \(id), 'app-a', 'sandbox', \(original), 'p', \(type), 1, now(),
                        \(revokedAt), '{}'::jsonb, 'play_token', 'x')
                    """, logger: Self.logger)
            }
            try await fact("GPA.1", original: "GPA.1", type: nil, revoked: false)
            try await fact("GPA.2", original: "GPA.2", type: nil, revoked: true)
            try await fact("GPA.3..4", original: "GPA.3", type: "auto_renewable", revoked: false)
            let repository = VoidedCursorPostgresRepository(client: client, logger: Self.logger)
            #expect(
                try await repository.knownOrder(appID: "app-a", orderID: "GPA.1")
                    == KnownPlayOrder(isSubscription: false, revoked: false))
            #expect(try await repository.knownOrder(appID: "app-a", orderID: "GPA.2")?.revoked == true)
            // An earlier renewal of a recorded subscription.
            #expect(
                try await repository.knownOrder(appID: "app-a", orderID: "GPA.3..1")
                    == KnownPlayOrder(isSubscription: true, revoked: false))
            #expect(try await repository.knownOrder(appID: "app-a", orderID: "GPA.9") == nil)
            #expect(try await repository.knownOrder(appID: "app-b", orderID: "GPA.1") == nil)
        }
    }
}
