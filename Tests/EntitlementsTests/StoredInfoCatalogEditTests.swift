import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels
import ShopkeeperStoredCustomerInfo
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// A catalog edit forgets only the stored info that read what it changed (`entitlements.stored_customer_info_v2`):
/// the customers who own an edited product see the edit at their next read, and every other customer's app launch
/// stays one row read instead of a render. What a user depends on: a read never shows info older than a catalog
/// change it could see. The memory cache is off in every test here: each read reaches the database.
@Suite struct StoredInfoCatalogEditTests {
    static let logger = Logger(label: "catalog-edit-test")
    static let noCache = ["SHOPKEEPER_CUSTOMER_CACHE_MS": "0"]
    static let day: TimeInterval = 86_400

    /// The customers of ``storedInfoOutlivesEditsOfWhatItDoesNotShow()``: one of each shape of customer info.
    static let users = ["owner", "yearly", "subscriber", "player", "full-user"]

    /// Makes the stored bodies of `users` say `refund_count` 41, so that a read shows whether it came from them.
    static func markStored(_ harness: EntitlementsHarness, _ users: [String]) async throws {
        let marked = try await harness.count(
            """
            WITH marked AS (
                UPDATE entitlements.customer_documents d
                SET body = replace(d.body, '"refund_count": 0', '"refund_count": 41')
                FROM entitlements.aliases a
                WHERE a.app_id = \(harness.appID) AND a.app_user_id = ANY(\(users)) AND d.customer_id = a.customer_id
                  AND d.body IS NOT NULL
                RETURNING 1)
            SELECT count(*) FROM marked
            """)
        try #require(marked == Int64(users.count), "not every customer has stored info")
    }

    /// The users among `users` whose stored info counts now, each checked to be the info a render makes now.
    static func servedFromStorage(_ harness: EntitlementsHarness, _ users: [String]) async throws -> Set<String> {
        try await TestDatabase.withClient(harness.database) { client in
            try await client.withConnection { connection in
                var served: Set<String> = []
                for user in users {
                    let found = try await StoredCustomerInfoRead.find(
                        appID: harness.appID, appUserID: user, resolution: 600, on: connection, logger: logger)
                    guard let stored = found?.json(appUserID: user) else { continue }
                    served.insert(user)
                    let rendered = try await CustomerInfoQuery.render(
                        appID: harness.appID, appUserID: user, storing: false, on: connection, logger: logger)
                    #expect(stored == rendered?.json, "\(user)'s stored info is not what a render makes now")
                }
                return served
            }
        }
    }

    /// `products` with the product `id` replaced by `edit` of it.
    static func editing(_ products: [Product], _ id: String, _ edit: (inout Product) -> Void) -> [Product] {
        products.map { product in
            var product = product
            if product.productID == id { edit(&product) }
            return product
        }
    }

    @Test("Editing one product keeps the stored info of customers who do not own it; its owner sees the edit at once")
    func anEditOfOneProductForgetsItsOwnersOnly() async throws {
        try await EntitlementsHarness.run(environment: Self.noCache) { harness in
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "owner")
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "pro_year")], user: "yearly")
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")], user: "player")
            try await Self.markStored(harness, ["owner", "yearly", "player"])

            let edited = Self.editing(EntitlementsFixtures.products, "garden") { $0.entitlements.append("flowers") }
            #expect(try await harness.importCatalog(edited).status == .ok)

            for user in ["yearly", "player"] {
                #expect(try await harness.info(user).refundCount == 41, "\(user)'s stored info was not used")
            }
            let owner = try await harness.info("owner")
            #expect(owner.refundCount == 0, "the owner's stored info outlived the edit of its product")
            #expect(owner.entitlements["flowers"]?.active == true)
            #expect(owner.entitlements["extra_garden"]?.active == true)
        }
    }

    @Test("Deleting a product and creating it again each reach its owners at once, and no one else")
    func deletionAndRecreationReachOwners() async throws {
        try await EntitlementsHarness.run(environment: Self.noCache) { harness in
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "owner")
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")], user: "player")
            try await Self.markStored(harness, ["player"])

            let withoutGarden = EntitlementsFixtures.products.filter { $0.productID != "garden" }
            #expect(try await harness.importCatalog(withoutGarden).status == .ok)
            #expect(try await harness.info("owner").entitlements["extra_garden"] == nil)
            #expect(try await harness.info("player").refundCount == 41)

            #expect(try await harness.importCatalog(EntitlementsFixtures.products).status == .ok)
            #expect(try await harness.info("owner").entitlements["extra_garden"]?.active == true)
            #expect(try await harness.info("player").refundCount == 41)
        }
    }

    @Test(
        "Stored info counts after an edit exactly when it read nothing the edit changed, and is then what a render makes"
    )
    func storedInfoOutlivesEditsOfWhatItDoesNotShow() async throws {
        try await EntitlementsHarness.run(environment: Self.noCache, products: AppTransactionTests.products) {
            harness in
            let soon = Date().addingTimeInterval(30 * Self.day)
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "owner")
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "pro_year")], user: "yearly")
            _ = try await harness.applied(
                [EntitlementsFixtures.transaction(product: "pro_monthly", expires: soon)], user: "subscriber")
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")], user: "player")
            _ = try AppTransactionTests.answer(
                try await AppTransactionTests.present("app-1", by: "full-user", variant: "full", harness: harness))

            // Each edit, and the customers whose stored info it forgets: those whose info reads what it changed, and
            // at every edit the customer with an app transaction, whose info reads every non-consumable's rules.
            var products = AppTransactionTests.products
            let edits: [(String, (inout Product) -> Void, Set<String>)] = [
                ("garden", { $0.entitlements.append("flowers") }, ["owner", "full-user"]),
                ("pro_year", { $0.duration = ISODuration("P2Y") }, ["yearly", "full-user"]),
                ("pro_monthly", { $0.entitlements.append("pro_plus") }, ["subscriber", "full-user"]),
                ("seeds", { $0.consumableQuantity = 7 }, ["full-user"]),
                ("garden", { $0.localizations["en"] = ProductLocalization(name: "Big garden") }, ["full-user"]),
                ("classic_garden", { $0.grandfatheredBelowVersion = AppVersion("3.0") }, ["full-user"]),
            ]
            for (product, edit, forgotten) in edits {
                for user in Self.users { _ = try await harness.info(user) }
                #expect(try await Self.servedFromStorage(harness, Self.users) == Set(Self.users), "before \(product)")
                products = Self.editing(products, product, edit)
                #expect(try await harness.importCatalog(products).status == .ok)
                let served = try await Self.servedFromStorage(harness, Self.users)
                #expect(Set(Self.users).subtracting(served) == forgotten, "editing \(product)")
            }
            let info = try await harness.info("full-user")
            #expect(info.entitlements["classic"]?.active == true, "the grandfathered product's edit did not show")
            let yearly = try await harness.info("yearly")
            #expect(yearly.entitlements["pro"]?.expiresAt ?? .distantPast > Date().addingTimeInterval(400 * Self.day))
        }
    }

    @Test("Stored info a previous release stored after a change counts only while the app's whole catalog is unchanged")
    func aBodyStoredWithoutItsStampFallsBackToTheCatalogRevision() async throws {
        try await EntitlementsHarness.run(environment: Self.noCache) { harness in
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "owner")
            // A change forgot the info (a new version) and a writer that knows nothing of the catalog stamp stored
            // the body again, as a replica of the previous release does: the stamp is of another version.
            #expect(
                try await harness.count(
                    """
                    WITH stored AS (
                        UPDATE entitlements.customer_documents d SET version = version + 1
                        FROM entitlements.aliases a
                        WHERE a.app_id = \(harness.appID) AND a.app_user_id = 'owner' AND d.customer_id = a.customer_id
                          AND d.catalog_stamped_version = d.version
                        RETURNING 1)
                    SELECT count(*) FROM stored
                    """) == 1)
            try await Self.markStored(harness, ["owner"])
            #expect(try await harness.info("owner").refundCount == 41, "a body of the catalog's revision was not used")

            let edited = Self.editing(EntitlementsFixtures.products, "seeds") { $0.consumableQuantity = 9 }
            #expect(try await harness.importCatalog(edited).status == .ok)
            #expect(try await harness.info("owner").refundCount == 0, "a body without its stamp outlived the catalog")
            #expect(try await Self.servedFromStorage(harness, ["owner"]) == ["owner"])
        }
    }
}
