import Foundation
import HummingbirdTesting
import Logging
import PostgresNIO
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Customer info is served from memory, and a change made anywhere reaches every replica's readers at once: the
/// cache lives a minute here, so only the change notifications (and local invalidation) can make these pass.
@Suite("Customer info cache")
struct CustomerCacheTests {
    static let longCache = ["SHOPKEEPER_CUSTOMER_CACHE_MS": "60000"]

    /// Polls `GET /v1/customers/{user}` on `replica` until `done` holds, for at most two seconds.
    static func eventually(
        _ harness: EntitlementsHarness, _ user: String, replica: Int, _ done: (CustomerInfo) -> Bool
    ) async throws -> CustomerInfo {
        try await ShopkeeperTestSupport.eventually(
            timeout: .seconds(2),
            {
                let response = try await harness.send(.get, "/v1/customers/\(user)", kind: .public, replica: replica)
                return try TestJSON.decode(CustomerInfo.self, response.body.readableBytesView)
            }, until: done)
    }

    @Test("A purchase applied by another replica shows on this one's cached reads")
    func otherReplicaWrites() async throws {
        try await EntitlementsHarness.run(replicas: 2, environment: Self.longCache) { harness in
            // Cached on replica 0 (twice, so the second read is a hit).
            _ = try await harness.send(.get, "/v1/customers/cached-user", kind: .public, replica: 0)
            let before = try await harness.send(.get, "/v1/customers/cached-user", kind: .public, replica: 0)
            #expect(try TestJSON.decode(CustomerInfo.self, before.body.readableBytesView).entitlements.isEmpty)

            let applied = try await harness.apply(
                [EntitlementsFixtures.transaction(product: "garden")], user: "cached-user", replica: 1)
            #expect(applied.status == .ok)
            let after = try await Self.eventually(harness, "cached-user", replica: 0) {
                $0.entitlements["extra_garden"]?.active == true
            }
            #expect(after.entitlements["extra_garden"]?.active == true)
        }
    }

    @Test("A replica's own write is read back at once")
    func ownWrite() async throws {
        try await EntitlementsHarness.run(environment: Self.longCache) { harness in
            _ = try await harness.info("own-user")
            _ = try await harness.info("own-user")
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")], user: "own-user")
            // No waiting: the same replica dropped its entry when the apply committed.
            #expect(try await harness.info("own-user").consumableBalances == ["seeds": 5])
        }
    }

    @Test("Reads are served from memory; a change made straight in the database reaches them by notification")
    func databaseChange() async throws {
        try await EntitlementsHarness.run(environment: Self.longCache) { harness in
            _ = try await harness.count(
                "SELECT 1::bigint FROM entitlements.customer_for(\(harness.appID), 'db-user')")
            let customer = """
                (SELECT customer_id FROM entitlements.aliases WHERE app_id = '\(harness.appID)' AND app_user_id = 'db-user')
                """
            // A change made without its trigger (this session only) notifies nobody.
            @Sendable func silentlySetRefundCount(_ value: Int) async throws {
                try await TestDatabase.withClient { client in
                    let logger = Logger(label: "test")
                    try await client.withTransaction(logger: logger) { connection in
                        try await connection.query("SET LOCAL session_replication_role = replica", logger: logger)
                        try await connection.query(
                            PostgresQuery(
                                unsafeSQL:
                                    "UPDATE entitlements.customers SET refund_count = \(value) WHERE customer_id = \(customer)"
                            ),
                            logger: logger)
                    }
                }
            }
            // Reads come from memory: once a read is kept, a silent change does not show. The creation's own
            // notification may still be on its way (a render that began before it is not kept), so this is waited
            // for, a read and a silent change at a time; without a cache it never happens.
            var servedFromMemory = false
            for value in 1...50 where !servedFromMemory {
                let shown = try await harness.info("db-user").refundCount
                try await silentlySetRefundCount(value)
                servedFromMemory = try await harness.info("db-user").refundCount == shown
            }
            #expect(servedFromMemory)
            try await TestDatabase.withClient { client in
                try await client.query(
                    PostgresQuery(
                        unsafeSQL: "UPDATE entitlements.customers SET refund_count = 7 WHERE customer_id = \(customer)")
                )
            }
            let after = try await Self.eventually(harness, "db-user", replica: 0) { $0.refundCount == 7 }
            #expect(after.refundCount == 7)
        }
    }

    @Test("The ETag follows the content: a 304 while nothing changed, a new tag after a change")
    func etags() async throws {
        try await EntitlementsHarness.run(environment: Self.longCache) { harness in
            _ = try await harness.count(
                "SELECT 1::bigint FROM entitlements.customer_for(\(harness.appID), 'tag-user')")
            let first = try await harness.send(.get, "/v1/customers/tag-user", kind: .public)
            let tag = try #require(first.headers[.eTag])
            let same = try await harness.send(
                .get, "/v1/customers/tag-user", kind: .public, headers: [.ifNoneMatch: tag])
            #expect(same.status == .notModified)
            #expect(try same.violations(.get, "/v1/customers/{app_user_id}") == [])
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "tag-user")
            let changed = try await harness.send(
                .get, "/v1/customers/tag-user", kind: .public, headers: [.ifNoneMatch: tag])
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != tag)
            #expect(try changed.violations(.get, "/v1/customers/{app_user_id}") == [])
        }
    }
}
