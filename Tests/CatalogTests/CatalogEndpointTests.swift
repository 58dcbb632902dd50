import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Catalog

@Suite struct CatalogEndpointTests {
    @Test func distributionAndDevelopmentBuildsSeeDifferentShops() async throws {
        try await CatalogHarness.run { harness in
            var pending = Fixtures.product("pending")
            pending.reviewState = .waitingForReview
            var hidden = Fixtures.product("hidden")
            hidden.clearedForSale = false
            var free = Fixtures.product("free")
            free.free = true
            free.storeProductIDs = [:]
            #expect(try await harness.importCatalog([Fixtures.product("live"), pending, hidden, free]).status == .ok)

            let distribution = try await harness.catalog("platform=app_store&app_version=1.0&build=distribution")
            #expect(distribution.status == .ok)
            let view = try TestJSON.decode(CatalogView.self, distribution.body.readableBytesView)
            #expect(view.products.map(\.productID) == ["free", "live"])
            #expect(view.products.first { $0.productID == "free" }?.availability == .free)
            #expect(view.products.allSatisfy { $0.reviewState == nil })

            let development = try await harness.catalog(
                "platform=app_store&app_version=1.0&build=development&locale=de-AT")
            let devView = try TestJSON.decode(CatalogView.self, development.body.readableBytesView)
            #expect(devView.products.map(\.productID) == ["free", "hidden", "live", "pending"])
            #expect(devView.products.first { $0.productID == "pending" }?.reviewState == .waitingForReview)
            #expect(devView.products.first { $0.productID == "live" }?.name == "live (de)")
            #expect(devView.products.first { $0.productID == "live" }?.locale == "de")
        }
    }

    /// A product sold on the web maps to a Stripe price (one-time or recurring) as it maps to App Store and Play
    /// product ids; the web shop (`platform=stripe`) sees it with that price, and a product without one is not sold
    /// there.
    @Test func stripePricesAreAStorePlatform() async throws {
        try await CatalogHarness.run { harness in
            var web = Fixtures.product("garden")
            web.storeProductIDs[.stripe] = "price_garden_extra"
            var club = Fixtures.product("club", type: .autoRenewable)
            club.storeProductIDs[.stripe] = "price_garden_club_monthly"
            #expect(try await harness.importCatalog([web, club, Fixtures.product("app_only")]).status == .ok)

            let response = try await harness.catalog("platform=stripe&app_version=1.0")
            #expect(response.status == .ok)
            let view = try TestJSON.decode(CatalogView.self, response.body.readableBytesView)
            #expect(view.products.map(\.productID) == ["club", "garden"])
            #expect(view.products.first { $0.productID == "garden" }?.storeProductID == "price_garden_extra")
            #expect(view.products.first { $0.productID == "club" }?.storeProductID == "price_garden_club_monthly")

            // One price maps to one product per app, as on the other stores.
            var taken = Fixtures.product("other")
            taken.storeProductIDs[.stripe] = "price_garden_extra"
            let conflict = try await harness.send(.post, "/v1/admin/products", json: try TestJSON.encode(taken))
            #expect(conflict.status == .conflict)
        }
    }

    @Test func etagAndIfNoneMatch() async throws {
        try await CatalogHarness.run { harness in
            #expect(try await harness.importCatalog([Fixtures.product("a")]).status == .ok)
            let query = "platform=play_store&app_version=1.0"
            let first = try await harness.catalog(query)
            let etag = try #require(first.headers[.eTag])
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))

            let cached = try await harness.catalog(query, headers: [.ifNoneMatch: etag])
            #expect(cached.status == .notModified)
            #expect(cached.body.readableBytes == 0)
            #expect(
                try await harness.catalog(query, headers: [.ifNoneMatch: "\"other\", \(etag)"]).status == .notModified)
            #expect(try await harness.catalog(query, headers: [.ifNoneMatch: "\"other\""]).status == .ok)

            // Another query of the same catalog has another body and so another tag.
            #expect(try await harness.catalog("platform=app_store&app_version=1.0").headers[.eTag] != etag)

            // A change to the catalog changes the tag.
            var changed = Fixtures.product("a")
            changed.localizations["en"]?.name = "Renamed"
            #expect(
                try await harness.send(.put, "/v1/admin/products/a", json: try TestJSON.encode(changed)).status == .ok)
            let after = try await harness.catalog(query, headers: [.ifNoneMatch: etag])
            #expect(after.status == .ok)
            #expect(after.headers[.eTag] != etag)
        }
    }

    @Test(arguments: [
        ("app_version=1.0", "?platform"),
        ("platform=windows&app_version=1.0", "?platform"),
        ("platform=app_store", "?app_version"),
        ("platform=app_store&app_version=one", "?app_version"),
        ("platform=app_store&app_version=1.0&build=beta", "?build"),
        ("platform=app_store&app_version=1.0&locale=not a locale", "?locale"),
        ("platform=app_store&app_version=1.0&variant=../x", "?variant"),
    ])
    func badQueriesAreRefused(query: String, pointer: String) async throws {
        try await CatalogHarness.run { harness in
            let response = try await harness.catalog(query.replacingOccurrences(of: " ", with: "%20"))
            #expect(response.status == .badRequest)
            let problem = try TestJSON.object(response.body.readableBytesView)
            #expect(problem["code"] as? String == "invalid_query")
            let errors = problem["errors"] as? [[String: Any]] ?? []
            #expect(errors.contains { $0["pointer"] as? String == pointer }, "\(errors)")
        }
    }

    /// Two replicas on one database: a change through one shows through the other within a second.
    @Test func changesReachEveryReplicaWithinOneSecond() async throws {
        let appID = TestEnvironment.uniqueAppID()
        try await CatalogHarness.run(appID: appID) { writer in
            try await CatalogHarness.run(appID: appID) { reader in
                #expect(try await writer.importCatalog([Fixtures.product("first")]).status == .ok)
                let query = "platform=app_store&app_version=1.0"
                let before = try await reader.catalog(query)
                #expect(
                    try TestJSON.decode(CatalogView.self, before.body.readableBytesView).products.map(\.productID) == [
                        "first"
                    ])

                #expect(
                    try await writer.importCatalog([Fixtures.product("first"), Fixtures.product("second")]).status
                        == .ok)
                let changedAt = ContinuousClock.now
                var seen = false
                while ContinuousClock.now - changedAt < .seconds(1) {
                    let view = try TestJSON.decode(
                        CatalogView.self, try await reader.catalog(query).body.readableBytesView)
                    if view.products.count == 2 {
                        seen = true
                        break
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(seen, "the second replica still served the old catalog after one second")
            }
        }
    }

    /// Calls without a valid gateway signature are refused before anything runs.
    @Test func unsignedAndForgedCallsAreRefused() async throws {
        try await CatalogHarness.run { harness in
            let path = "/v1/catalog?platform=app_store&app_version=1.0"
            let unsigned = try await harness.client.execute(uri: path, method: .get)
            #expect(unsigned.status == .unauthorized)
            #expect(
                try TestJSON.object(unsigned.body.readableBytesView)["code"] as? String == "invalid_internal_signature")

            let forged = HTTPFields.signed(
                .get, path, appID: harness.appID, secret: "another-secret-that-is-long-enough-000000")
            #expect(try await harness.client.execute(uri: path, method: .get, headers: forged).status == .unauthorized)

            // A signature for one app does not carry over to another app id.
            var swapped = HTTPFields.signed(.get, path, appID: harness.appID)
            swapped[HTTPField.Name("x-shopkeeper-app-id")!] = "app_someone_else"
            #expect(try await harness.client.execute(uri: path, method: .get, headers: swapped).status == .unauthorized)

            // Signed for another path.
            let otherPath = HTTPFields.signed(
                .get, "/v1/catalog?platform=play_store&app_version=1.0", appID: harness.appID)
            #expect(
                try await harness.client.execute(uri: path, method: .get, headers: otherPath).status == .unauthorized)

            // Health needs no signature.
            #expect(try await harness.client.execute(uri: "/health/live", method: .get).status == .ok)
            #expect(try await harness.client.execute(uri: "/health/ready", method: .get).status == .ok)
        }
    }
}
