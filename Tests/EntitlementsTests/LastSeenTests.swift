import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// `last_seen`: an app launch after ten minutes or more refreshes it (the answer shows the time of the read, the write
/// follows in a batch), a read in between writes nothing, and the refresh alone tells no replica to drop its cached
/// info.
@Suite struct LastSeenTests {
    static let logger = Logger(label: "last-seen-test")

    /// Sets the customer's `last_seen` to `seconds` ago and answers it, by the database's clock.
    func setLastSeen(_ appID: String, _ user: String, secondsAgo: Int, _ client: PostgresClient) async throws -> Date {
        let rows = try await client.query(
            """
            UPDATE entitlements.customers cu SET last_seen = now() - make_interval(secs => \(secondsAgo))
            FROM entitlements.aliases a
            WHERE a.app_id = \(appID) AND a.app_user_id = \(user) AND cu.customer_id = a.customer_id
            RETURNING cu.last_seen
            """, logger: Self.logger)
        for try await seen in rows.decode(Date.self) { return seen }
        throw HarnessError("no customer \(user)")
    }

    @Test("A read after ten minutes refreshes last_seen and shows it; a read sooner writes nothing")
    func aReadRefreshesLastSeenAtMostEveryTenMinutes() async throws {
        // No cache: every read here reaches the database. (Also: entitlements starts and answers with the cache off;
        // it used to stop at once, its listener, a service, returning.)
        try await EntitlementsHarness.run(environment: ["SHOPKEEPER_CUSTOMER_CACHE_MS": "0"]) { harness in
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "returning")
            try await TestDatabase.withClient(harness.database) { client in
                let longAgo = try await setLastSeen(harness.appID, "returning", secondsAgo: 3600, client)
                let refreshed = try await harness.info("returning")
                #expect(refreshed.lastSeen > longAgo.addingTimeInterval(3000))
                // The read came from the stored info; its `last_seen` is written in the next batch.
                try await eventually("last_seen written") {
                    try await harness.count(
                        """
                        SELECT count(*) FROM entitlements.customers cu JOIN entitlements.aliases a USING (customer_id)
                        WHERE a.app_id = \(harness.appID) AND a.app_user_id = 'returning'
                          AND cu.last_seen > now() - interval '10 minutes'
                        """) == 1
                }

                let recently = try await setLastSeen(harness.appID, "returning", secondsAgo: 300, client)
                let again = try await harness.info("returning")
                // (Shown to the second.)
                #expect(abs(again.lastSeen.timeIntervalSince(recently)) < 1, "written again")
            }
        }
    }

    @Test("Changing last_seen alone notifies no replica; any other change of the customer row does")
    func lastSeenAloneNotifiesNothing() async throws {
        try await EntitlementsHarness.run { harness in
            for user in ["quiet", "loud"] {
                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: user)
            }
            try await TestDatabase.withClient(harness.database) { client in
                var ids: [String: String] = [:]
                let rows = try await client.query(
                    """
                    SELECT app_user_id, customer_id::text FROM entitlements.aliases
                    WHERE app_id = \(harness.appID) AND app_user_id IN ('quiet', 'loud')
                    """, logger: Self.logger)
                for try await (user, id) in rows.decode((String, String).self) { ids[user] = id }
                let quiet = try #require(ids["quiet"])
                let loud = try #require(ids["loud"])
                try await client.withConnection { connection in
                    try await connection.listen(on: "entitlements_customer_changed") { notifications in
                        // Committed in this order: notifications arrive in commit order, so the first one for
                        // either customer tells whether the first change notified.
                        _ = try await setLastSeen(harness.appID, "quiet", secondsAgo: 7200, client)
                        try await client.query(
                            """
                            UPDATE entitlements.customers SET refund_count = refund_count
                            WHERE customer_id = \(loud)::uuid
                            """, logger: Self.logger)
                        try await client.query(
                            """
                            UPDATE entitlements.customers SET refund_count = refund_count + 1
                            WHERE customer_id = \(loud)::uuid
                            """, logger: Self.logger)
                        for try await notification in notifications where [quiet, loud].contains(notification.payload) {
                            #expect(notification.payload == loud, "last_seen alone notified")
                            break
                        }
                    }
                }
            }
        }
    }
}
