import Foundation
import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStoredCustomerInfo
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// Customer info is stored as rendered (`entitlements.customer_documents`), so an app launch reads one row. What a
/// user depends on: a read never shows info older than a change it could see (a write, a catalog change, an end
/// passing), and a render that raced a change is never stored over it. The memory cache is off in every test here:
/// each read reaches the database.
@Suite struct StoredCustomerInfoTests {
    static let logger = Logger(label: "stored-info-test")
    static let noCache = ["SHOPKEEPER_CUSTOMER_CACHE_MS": "0"]

    /// Applies a purchase of `garden` for `user`, then makes its stored body say `refund_count` 41, so that a read
    /// shows whether it came from it.
    func storeMarkedInfo(of user: String, _ harness: EntitlementsHarness) async throws {
        _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: user)
        try await TestDatabase.withClient(harness.database) { client in
            let marked = try await client.query(
                """
                UPDATE entitlements.customer_documents d
                SET body = replace(d.body, '"refund_count": 0', '"refund_count": 41')
                FROM entitlements.aliases a
                WHERE a.app_id = \(harness.appID) AND a.app_user_id = \(user) AND d.customer_id = a.customer_id
                  AND d.body IS NOT NULL
                RETURNING d.customer_id
                """, logger: Self.logger)
            var count = 0
            for try await _ in marked.decode(UUID.self) { count += 1 }
            try #require(count == 1, "no stored info of \(user)")
        }
    }

    @Test("A batched read answers each read by its position: its own customer, nothing for an unknown id")
    func batchedReadsByPosition() async throws {
        try await EntitlementsHarness.run(environment: Self.noCache) { harness in
            for index in 0..<3 {
                _ = try await harness.applied([EntitlementsFixtures.transaction()], user: "batch-\(index)")
            }
            let keys = [
                (harness.appID, "batch-2"), (harness.appID, "nobody"), (harness.appID, "batch-0"),
                ("another-app", "batch-1"), (harness.appID, "batch-1"), (harness.appID, "batch-2"),
            ].map { (appID: $0.0, appUserID: $0.1) }
            try await TestDatabase.withClient(harness.database) { client in
                try await client.withConnection { connection in
                    let found = try await StoredCustomerInfoRead.Batch.read(
                        keys, resolution: 600, on: connection, logger: Self.logger)
                    try #require(found.count == keys.count)
                    #expect(found[1] == nil)
                    #expect(found[3] == nil, "another app's key reads this app's customer")
                    for index in [0, 2, 4, 5] {
                        let key = keys[index]
                        let json = try #require(found[index]?.json(appUserID: key.appUserID), "\(key)")
                        let info = try TestJSON.decode(CustomerInfo.self, Data(json.utf8))
                        #expect(info.appUserID == key.appUserID)
                        // The stored body is the customer's own (its aliases), not another read's.
                        #expect(info.aliases == [key.appUserID], "\(key)")
                    }
                    #expect(found[0]?.customerID == found[5]?.customerID)
                    #expect(found[0]?.customerID != found[2]?.customerID)
                }
            }
        }
    }

    @Test("A purchase stores the info; reads use it until the customer's next change")
    func readsUseTheStoredInfoUntilAChange() async throws {
        try await EntitlementsHarness.run(environment: Self.noCache) { harness in
            try await storeMarkedInfo(of: "stored", harness)
            let stored = try await harness.info("stored")
            #expect(stored.refundCount == 41, "not read from the stored info")
            #expect(stored.appUserID == "stored")

            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "pro_year")], user: "stored")
            let changed = try await harness.info("stored")
            #expect(changed.refundCount == 0)
            #expect(changed.nonSubscriptionPurchases.compactMap(\.productID).sorted() == ["garden", "pro_year"])
        }
    }

    @Test("The same info reads as the same bytes, rendered or stored, by every alias")
    func renderedAndStoredAreTheSameBytes() async throws {
        try await EntitlementsHarness.run(environment: Self.noCache) { harness in
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "bytes")
            try await TestDatabase.withClient(harness.database) { client in
                try await client.query(
                    "UPDATE entitlements.customer_documents SET body = NULL WHERE body IS NOT NULL AND customer_id IN (SELECT customer_id FROM entitlements.aliases WHERE app_id = \(harness.appID))",
                    logger: Self.logger)
            }
            let rendered = try await harness.send(.get, "/v1/customers/bytes")
            let stored = try await harness.send(.get, "/v1/customers/bytes")
            #expect(rendered.status == .ok)
            #expect(rendered.body == stored.body)
            #expect(rendered.headers[.eTag] == stored.headers[.eTag])
            let info = try TestJSON.decode(CustomerInfo.self, stored.body.readableBytesView)
            #expect(info.appUserID == "bytes")
        }
    }

    @Test("A catalog change reaches stored info: a product's new entitlement shows at the next read")
    func aCatalogChangeForgetsStoredInfo() async throws {
        try await EntitlementsHarness.run(environment: Self.noCache) { harness in
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "catalog")
            #expect(try await harness.info("catalog").entitlements["flowers"] == nil)
            var products = EntitlementsFixtures.products
            products[0] = EntitlementsFixtures.product(
                "garden", type: .nonConsumable, entitlements: ["extra_garden", "flowers"])
            let imported = try await harness.importCatalog(products)
            #expect(imported.status == .ok)
            let after = try await harness.info("catalog")
            #expect(after.entitlements["flowers"]?.active == true, "stored info outlived the catalog change")
        }
    }

    @Test("Stored info whose next end or start has passed is rendered again")
    func storedInfoPastItsEndIsRenderedAgain() async throws {
        try await EntitlementsHarness.run(environment: Self.noCache) { harness in
            try await storeMarkedInfo(of: "ended", harness)
            try await TestDatabase.withClient(harness.database) { client in
                try await client.query(
                    """
                    UPDATE entitlements.customer_documents d SET valid_until = now() - interval '1 second'
                    FROM entitlements.aliases a
                    WHERE a.app_id = \(harness.appID) AND a.app_user_id = 'ended' AND d.customer_id = a.customer_id
                    """, logger: Self.logger)
            }
            #expect(try await harness.info("ended").refundCount == 0)
        }
    }

    @Test("A render that raced a change is not stored over it")
    func aRaceWithAChangeStoresNothingStale() async throws {
        try await EntitlementsHarness.run(environment: Self.noCache) { harness in
            _ = try await harness.applied(
                [EntitlementsFixtures.transaction("race-1", product: "garden")], user: "racer")
            try await TestDatabase.withClient(harness.database) { client in
                // Nothing stored counts, so the next read renders.
                try await client.query(
                    """
                    UPDATE entitlements.customer_documents d SET body = NULL
                    FROM entitlements.aliases a
                    WHERE a.app_id = \(harness.appID) AND a.app_user_id = 'racer' AND d.customer_id = a.customer_id
                    """, logger: Self.logger)
                try await client.withConnection { change in
                    // A change in flight: it forgot the stored info (holding its row) and has not committed.
                    try await change.query("BEGIN", logger: Self.logger)
                    try await change.query(
                        """
                        UPDATE entitlements.purchases SET revoked_at = now(), revocation_reason = 'other'
                        WHERE store = 'app_store' AND original_transaction_id = 'race-1'
                        """, logger: Self.logger)
                    // The read renders from before the change, and its store waits for the change's row. (The
                    // render is told by its first words: the activity view keeps only a statement's first 1 kB.)
                    async let raced = harness.info("racer")
                    try await eventually("the read's store waits for the change") {
                        try await harness.count(
                            """
                            SELECT count(*) FROM pg_stat_activity
                            WHERE wait_event_type = 'Lock' AND query LIKE 'WITH c AS (%'
                            """) > 0
                    }
                    try await change.query("COMMIT", logger: Self.logger)
                    let before = try await raced
                    #expect(before.nonSubscriptionPurchases.first?.revokedAt == nil)
                }
            }
            let after = try await harness.info("racer")
            #expect(after.nonSubscriptionPurchases.first?.revokedAt != nil, "the raced render was stored")
            #expect(after.entitlements["extra_garden"]?.active == false)
        }
    }
}
