import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite("Claims of free products")
struct ProductClaimTests {
    static let claims = "/v1/customers/{app_user_id}/claims"

    /// The fixtures and a free product with an entitlement and one without.
    static let products: [Product] =
        EntitlementsFixtures.products + [
            Product(
                productID: "starter", type: .nonConsumable, free: true, entitlements: ["starter_pack"],
                localizations: ["en": ProductLocalization(name: "Starter")]),
            Product(
                productID: "wallpaper", type: .nonConsumable, free: true,
                localizations: ["en": ProductLocalization(name: "Wallpaper")]),
        ]

    static func claim(_ product: String, by user: String, harness: EntitlementsHarness, atOnce: Bool = false)
        async throws -> any HTTPAnswer
    {
        try await harness.send(
            .post, "/v1/customers/\(user)/claims", kind: .public,
            json: Data(#"{"product_id":"\#(product)"}"#.utf8), atOnce: atOnce)
    }

    @Test("A claimed free product is owned, with its entitlements, whether or not it has content")
    func claimedProductIsOwned() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let claimed = try await Self.claim("starter", by: "newcomer", harness: harness)
            #expect(claimed.status == .created, "\(String(buffer: claimed.body))")
            #expect(try claimed.violations(.post, Self.claims) == [])
            let body = try claimed.json
            #expect(body["product_id"] as? String == "starter")
            #expect(body["source"] as? String == "free")
            #expect(body["created"] as? Bool == true)
            let customer = try #require(body["customer"] as? [String: Any])
            let grants = try #require(customer["product_grants"] as? [[String: Any]])
            #expect(grants.map { $0["product_id"] as? String } == ["starter"])

            let info = try await harness.info("newcomer")
            #expect(info.productGrants.map(\.productID) == ["starter"])
            #expect(info.productGrants.first?.source == "free")
            #expect(info.entitlements["starter_pack"]?.active == true)
            #expect(info.entitlements["starter_pack"]?.source == "free")
            #expect(info.entitlements["starter_pack"]?.productID == "starter")
            #expect(info.entitlements["starter_pack"]?.expiresAt == nil)

            // A product with no entitlement is still owned.
            #expect(try await Self.claim("wallpaper", by: "newcomer", harness: harness).status == .created)
            #expect(try await harness.info("newcomer").productGrants.map(\.productID) == ["starter", "wallpaper"])
        }
    }

    @Test("Claiming again answers the first claim and changes nothing")
    func claimingAgainChangesNothing() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let first = try await Self.claim("starter", by: "newcomer", harness: harness)
            #expect(first.status == .created)
            let again = try await Self.claim("starter", by: "newcomer", harness: harness)
            #expect(again.status == .ok)
            #expect(try again.violations(.post, Self.claims) == [])
            #expect(try again.json["created"] as? Bool == false)
            #expect(try again.json["granted_at"] as? String == (try first.json["granted_at"] as? String))
            #expect(
                try await harness.count(
                    "SELECT count(*) FROM entitlements.content_claims WHERE app_id = \(harness.appID)") == 1)
        }
    }

    @Test("Fifty claims of one product by one customer at once grant it once")
    func concurrentClaimsGrantOnce() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await Self.claim("starter", by: "racer", harness: harness, atOnce: true).status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 1)
            #expect(statuses.filter { $0 == .ok }.count == 49)
            #expect(
                try await harness.count(
                    "SELECT count(*) FROM entitlements.content_claims WHERE app_id = \(harness.appID)") == 1)
            #expect(try await harness.info("racer").productGrants.count == 1)
        }
    }

    @Test("Only what the catalog marks free may be claimed; nothing is written otherwise")
    func refusals() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let paid = try await Self.claim("garden", by: "sneaky", harness: harness)
            #expect(paid.status == .forbidden)
            #expect(paid.problemCode == "product_not_free")
            #expect(try paid.violations(.post, Self.claims) == [])
            let unknown = try await Self.claim("nothing_here", by: "sneaky", harness: harness)
            #expect(unknown.status == .notFound)
            #expect(unknown.problemCode == "product_not_found")
            let empty = try await Self.claim("", by: "sneaky", harness: harness)
            #expect(empty.status == .unprocessableContent)
            let missing = try await harness.send(
                .post, "/v1/customers/sneaky/claims", kind: .public, json: Data(#"{"free":true}"#.utf8))
            #expect(missing.status == .unprocessableContent || missing.status == .badRequest)
            #expect(try missing.violations(.post, Self.claims) == [])
            // Nothing was created by the refused claims.
            #expect(
                try await harness.count(
                    """
                    SELECT count(*) FROM entitlements.content_claims WHERE app_id = \(harness.appID)
                    AND product_id <> 'starter'
                    """) == 0)
            // Another app's free product is not this app's.
            let other = try await harness.otherApp(products: EntitlementsFixtures.products)
            let foreign = try await Self.claim("starter", by: "sneaky", harness: other)
            #expect(foreign.status == .notFound)
        }
    }

    @Test("A claim made by an id reaches the customer it was merged into")
    func claimSurvivesAMerge() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            #expect(try await Self.claim("starter", by: "anon-1", harness: harness).status == .created)
            _ = try await harness.applied([EntitlementsFixtures.transaction()], user: "user-9")
            let merged = try await harness.link("anon-1", to: "user-9")
            #expect(merged.status == .ok, "\(merged.text)")
            let info = try await harness.info("user-9")
            #expect(info.productGrants.map(\.productID) == ["starter"])
            #expect(info.entitlements["starter_pack"]?.active == true)
            // Claiming again from the merged customer answers the claim it holds.
            let again = try await Self.claim("starter", by: "user-9", harness: harness)
            #expect(again.status == .ok)
        }
    }
}
