import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Subscriptions
@testable import Verifier

/// The reconciliation queue on a real database of its own: which subscriptions look stale, that replicas claiming
/// at once never ask about one subscription twice, and when one is asked about again.
@Suite struct ReconciliationRepositoryTests {
    static let logger = Logger(label: "reconciliation-test")

    /// Runs `body` on a fresh database with the subscriptions and verifier schemas.
    func withDatabase(_ body: @Sendable (PostgresClient) async throws -> Void) async throws {
        try await TestDatabase.withMigratedDatabase(
            [SubscriptionsMigrations.runner, VerifierMigrations.runner], logger: Self.logger, body)
    }

    /// Adds a subscription whose period ended `endedSecondsAgo` ago.
    func subscription(
        _ id: String, endedSecondsAgo: Double, state: String = "expired", storeEndedSecondsAgo: Double? = nil,
        billingRetry: Bool = false, on client: PostgresClient
    ) async throws {
        let ended: Double? = storeEndedSecondsAgo
        try await client.query(
            """
            INSERT INTO subscriptions.subscriptions (
                store, original_transaction_id, app_id, environment, product_id, store_product_id, group_key, state,
                period_type, started_at, expires_at, store_ended_at, billing_retry)
            VALUES (
                'app_store', \(id), 'app_reconcile', 'sandbox', 'pro', 'pro.monthly', 'pro', \(state), 'normal',
                now() - interval '40 days', now() - make_interval(secs => \(endedSecondsAgo)),
                now() - make_interval(secs => \(ended)), \(billingRetry))
            """, logger: Self.logger)
    }

    @Test func onlyStaleSubscriptionsAreClaimedAndConcurrentClaimsNeverOverlap() async throws {
        try await withDatabase { client in
            for index in 0..<40 {
                try await subscription("stale-\(index)", endedSecondsAgo: Double(400 + index), on: client)
            }
            // Still in billing retry: the store may recover it, so it is asked about too.
            try await subscription(
                "retrying", endedSecondsAgo: 600, state: "billing_retry", storeEndedSecondsAgo: 500, billingRetry: true,
                on: client)
            // Not stale: the store said this period is over; refunded; ended too long ago; ended too recently
            // (within `after`); still running.
            try await subscription("told", endedSecondsAgo: 600, storeEndedSecondsAgo: 590, on: client)
            try await subscription("refunded", endedSecondsAgo: 600, state: "refunded", on: client)
            try await subscription("ancient", endedSecondsAgo: 40 * 86_400, on: client)
            try await subscription("recent", endedSecondsAgo: 5, on: client)
            try await subscription("running", endedSecondsAgo: -3600, state: "active", on: client)

            let replicas = [
                ReconciliationPostgresRepository(client: client, logger: Self.logger),
                ReconciliationPostgresRepository(client: client, logger: Self.logger),
            ]
            let claimed = try await withThrowingTaskGroup(of: [StaleSubscription].self) { group in
                for round in 0..<16 {
                    group.addTask {
                        try await replicas[round % 2].claim(limit: 5, after: .seconds(300), lease: .seconds(3600))
                    }
                }
                var all: [StaleSubscription] = []
                for try await batch in group { all += batch }
                return all
            }
            // Claims that ran at once may have picked the same rows; the later ones skip what is claimed, so a burst
            // can claim fewer than it could. What is left is claimed by the next rounds, and nothing twice.
            var ids = claimed.map(\.originalTransactionID)
            var all = claimed
            for _ in 0..<20 {
                let more = try await replicas[0].claim(limit: 5, after: .seconds(300), lease: .seconds(3600))
                if more.isEmpty { break }
                ids += more.map(\.originalTransactionID)
                all += more
            }
            #expect(ids.count == 41, "\(ids.count) claims")
            #expect(Set(ids).count == ids.count, "a subscription was claimed twice")
            #expect(Set(ids) == Set((0..<40).map { "stale-\($0)" } + ["retrying"]))
            #expect(all.allSatisfy { $0.attempts == 1 && $0.appID == "app_reconcile" })
        }
    }

    @Test func aCheckedSubscriptionIsAskedAboutAgainAfterItsPauseAndAfreshForANewPeriodEnd() async throws {
        try await withDatabase { client in
            try await subscription("quiet", endedSecondsAgo: 60, on: client)
            try await subscription("paused", endedSecondsAgo: 61, on: client)
            let repository = ReconciliationPostgresRepository(client: client, logger: Self.logger)
            let first = try await repository.claim(limit: 10, after: .zero, lease: .seconds(60))
            #expect(first.map(\.originalTransactionID).sorted() == ["paused", "quiet"])
            for claimed in first {
                let pause: Duration = claimed.originalTransactionID == "quiet" ? .milliseconds(100) : .seconds(3600)
                try await repository.finish(claimed, outcome: "checked", nextCheckIn: pause)
            }
            // Claimed again once the quiet one's pause has passed; the paused one's hour has not.
            let second = try await eventually(
                { try await repository.claim(limit: 10, after: .zero, lease: .seconds(60)) }, until: { !$0.isEmpty })
            #expect(second.map(\.originalTransactionID) == ["quiet"])
            #expect(second.first?.attempts == 2)

            // The paused one's period end moves (a renewal was found, and that period ended too): a new question.
            try await client.query(
                """
                UPDATE subscriptions.subscriptions SET expires_at = now() - interval '1 second'
                WHERE original_transaction_id = 'paused'
                """, logger: Self.logger)
            let third = try await repository.claim(limit: 10, after: .zero, lease: .seconds(60))
            #expect(third.map(\.originalTransactionID) == ["paused"])
            #expect(third.first?.attempts == 1)
        }
    }

    @Test func aReleasedSubscriptionIsDueAgainAtOnceWithItsCheckNotCounted() async throws {
        try await withDatabase { client in
            try await subscription("handed-back", endedSecondsAgo: 600, on: client)
            let repository = ReconciliationPostgresRepository(client: client, logger: Self.logger)
            let first = try await repository.claim(limit: 5, after: .seconds(300), lease: .seconds(3600))
            #expect(first.map(\.attempts) == [1])
            #expect(try await repository.claim(limit: 5, after: .seconds(300), lease: .seconds(3600)).isEmpty)
            // A replica shutting down hands it back: another takes it at once, as its first check still.
            try await repository.release(first)
            let again = try await repository.claim(limit: 5, after: .seconds(300), lease: .seconds(3600))
            #expect(again.map(\.originalTransactionID) == ["handed-back"])
            #expect(again.map(\.attempts) == [1])
        }
    }

    @Test func pausesDoubleUpToADay() {
        let settings = ReconcilerSettings(interval: .seconds(60), after: .seconds(300), backoff: .seconds(600))
        #expect(settings.pause(afterAttempt: 1) == .seconds(600))
        #expect(settings.pause(afterAttempt: 2) == .seconds(1200))
        #expect(settings.pause(afterAttempt: 4) == .seconds(4800))
        #expect(settings.pause(afterAttempt: 30) == .seconds(86_400))
    }
}
