import Foundation
import HTTPTypes
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// Support's look-ups: finding a customer by what they quote, and why each entitlement is active or not.
@Suite struct CustomerLookupTests {
    static let explain = "/v1/customers/{app_user_id}/explain"
    static let search = "/v1/admin/customers"

    @Test func explainGivesEveryReasonAndAgreesWithCustomerInfo() async throws {
        try await EntitlementsHarness.run { harness in
            let garden = EntitlementsFixtures.transaction(product: "garden")
            _ = try await harness.applied([garden], user: "ann")
            #expect(try await harness.grant("pro", to: "ann").status == .created)
            let vip = try await harness.grant("vip", to: "ann")
            let vipID = try #require((try vip.json["grant"] as? [String: Any])?["grant_id"] as? String)
            #expect(try await harness.send(.delete, "/v1/customers/ann/grants/\(vipID)").status == .ok)

            let answer = try await harness.send(.get, "/v1/customers/ann/explain")
            #expect(answer.status == .ok)
            #expect(answer.headers[.cacheControl] == "no-store")
            #expect(try answer.violations(.get, Self.explain) == [])
            let explained = try #require(try answer.json["entitlements"] as? [String: [String: Any]])
            let info = try await harness.info("ann", kind: .secret)

            // The same verdict as customer info, entitlement by entitlement; and the first reason is the one it shows.
            #expect(Set(info.entitlements.keys).isSubset(of: Set(explained.keys)))
            for (id, entitlement) in info.entitlements {
                #expect(explained[id]?["active"] as? Bool == entitlement.active, "\(id)")
                let first = (explained[id]?["reasons"] as? [[String: Any]])?.first
                #expect(first?["source"] as? String == entitlement.source, "\(id)")
            }
            let extraGarden = try #require(explained["extra_garden"]?["reasons"] as? [[String: Any]])
            #expect(extraGarden.count == 1)
            #expect(extraGarden.first?["source"] as? String == "purchase")
            #expect(extraGarden.first?["state"] as? String == "owned")
            #expect(extraGarden.first?["store"] as? String == "app_store")
            #expect(extraGarden.first?["original_transaction_id"] as? String == garden.originalTransactionID)
            #expect(explained["extra_garden"]?["granted_by_products"] as? [String] == ["garden"])

            let pro = try #require(explained["pro"])
            #expect(pro["active"] as? Bool == true)
            #expect(pro["granted_by_products"] as? [String] == ["pro_monthly", "pro_year"])
            let proReasons = try #require(pro["reasons"] as? [[String: Any]])
            #expect(proReasons.map { $0["source"] as? String } == ["promotional"])
            #expect(proReasons.first?["state"] as? String == "active")
            #expect(proReasons.first?["grant_id"] is String)

            // A revoked grant explains why an entitlement is not active.
            let revoked = try #require(explained["vip"])
            #expect(revoked["active"] as? Bool == false)
            let vipReasons = try #require(revoked["reasons"] as? [[String: Any]])
            #expect(vipReasons.first?["state"] as? String == "revoked")
            #expect(vipReasons.first?["grant_id"] as? String == vipID.lowercased())
            #expect(vipReasons.first?["active"] as? Bool == false)
        }
    }

    @Test func explainListsWhatTheCatalogWouldGrantAndRefusesWhatItMust() async throws {
        try await EntitlementsHarness.run { harness in
            #expect(try await harness.grant("vip", to: "bea").status == .created)
            let answer = try await harness.send(.get, "/v1/customers/bea/explain")
            let explained = try #require(try answer.json["entitlements"] as? [String: [String: Any]])
            // Named by the catalog, no source: inactive, with what would grant it.
            #expect(explained["extra_garden"]?["active"] as? Bool == false)
            #expect((explained["extra_garden"]?["reasons"] as? [Any])?.isEmpty == true)
            #expect(explained["extra_garden"]?["granted_by_products"] as? [String] == ["garden"])
            // Granted, not in the catalog: active, with its grant.
            #expect(explained["vip"]?["active"] as? Bool == true)
            #expect(explained["vip"]?["granted_by_products"] as? [String] == [])

            let unknown = try await harness.send(.get, "/v1/customers/nobody-here/explain")
            #expect(unknown.status == .notFound)
            #expect(try unknown.json["code"] as? String == "customer_not_found")
            #expect(try unknown.violations(.get, Self.explain) == [])
            let publicKey = try await harness.send(.get, "/v1/customers/bea/explain", kind: .public)
            #expect(publicKey.status == .forbidden)
            // Another app has no such customer.
            let other = try await harness.otherApp()
            #expect(try await other.send(.get, "/v1/customers/bea/explain").status == .notFound)
        }
    }

    @Test func searchFindsCustomersByIdsTransactionsAndOrders() async throws {
        try await EntitlementsHarness.run { harness in
            let apple = EntitlementsFixtures.transaction(product: "garden")
            _ = try await harness.applied([apple], user: "carla-1234")
            #expect(try await harness.link("carla-old", to: "carla-1234").status == .ok)
            let order = "GPA.3381-2243-9911-\(Int.random(in: 10000...99999))"
            let renewal = EntitlementsFixtures.transaction(
                order + "..0", product: "pro_monthly", original: order, store: .playStore,
                expires: Date().addingTimeInterval(86_400))
            _ = try await harness.applied([renewal], user: "dan")

            func search(_ query: String, limit: Int? = nil) async throws -> [String: Any] {
                let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
                let answer = try await harness.send(
                    .get, "/v1/admin/customers?query=\(encoded)" + (limit.map { "&limit=\($0)" } ?? ""))
                #expect(answer.status == .ok, "\(query): \(String(buffer: answer.body))")
                #expect(try answer.violations(.get, Self.search) == [])
                return try answer.json
            }
            func matches(_ query: String) async throws -> [[String: Any]] {
                try #require(try await search(query)["matches"] as? [[String: Any]])
            }

            let exact = try await matches("carla-1234")
            #expect(exact.count == 1)
            #expect(exact.first?["matched"] as? String == "app_user_id")
            #expect(exact.first?["app_user_ids"] as? [String] == ["carla-1234", "carla-old"])
            // The beginning of an id finds both of the customer's ids, each once.
            let prefix = try await matches("carla")
            #expect(Set(prefix.compactMap { $0["value"] as? String }) == ["carla-1234", "carla-old"])
            // LIKE's wildcards are searched as themselves.
            #expect(try await matches("carl%").isEmpty)
            #expect(try await matches("c_rla").isEmpty)

            let byTransaction = try await matches(apple.transactionID)
            #expect(byTransaction.first?["matched"] as? String == "transaction_id")
            #expect(byTransaction.first?["store"] as? String == "app_store")
            #expect(byTransaction.first?["app_user_ids"] as? [String] == ["carla-1234", "carla-old"])

            let byRenewalOrder = try await matches(order + "..0")
            #expect(byRenewalOrder.first?["matched"] as? String == "google_order_id")
            #expect(byRenewalOrder.first?["app_user_ids"] as? [String] == ["dan"])
            let byFirstOrder = try await matches(order)
            #expect(byFirstOrder.first?["matched"] as? String == "google_order_id")
            #expect(byFirstOrder.first?["store"] as? String == "play_store")

            // Nothing found; an App Store order id is answered with where to ask Apple.
            let appleOrder = try await search("MK5TTTVWJH")
            #expect((appleOrder["matches"] as? [Any])?.isEmpty == true)
            #expect(appleOrder["apple_order_lookup"] as? String == "/v1/admin/stores/apple/orders/MK5TTTVWJH")
            #expect(try await search("nobody")["apple_order_lookup"] is NSNull)

            // Scoped to the app.
            let other = try await harness.otherApp()
            let elsewhere = try await other.send(.get, "/v1/admin/customers?query=carla-1234")
            #expect((try elsewhere.json["matches"] as? [Any])?.isEmpty == true)

            for bad in ["", "limit=0&query=x", "query=x&limit=101"] {
                let refused = try await harness.send(.get, "/v1/admin/customers?\(bad)")
                #expect(refused.status == .badRequest, "\(bad)")
                #expect(try refused.json["code"] as? String == "invalid_query")
            }
            #expect(try await harness.send(.get, "/v1/admin/customers?query=x", kind: .public).status == .forbidden)
        }
    }
}
