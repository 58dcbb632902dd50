import Foundation
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// The sandbox's Android Publisher monetization endpoints: Google's bearer rule for them (the Play Developer API's),
/// their v3 shapes (`OneTimeProduct`, `Subscription`, `SubscriptionOffer`, prices as `Money`), Google's paging, and
/// states and prices changed through `/sandbox/google/products`.
@Suite struct PlayMonetizationAPITests {
    static let base = "/google/androidpublisher/v3/applications/com.example.garden"

    static var catalog: [String: Any] {
        [
            "package_name": "com.example.garden",
            "products": [
                [
                    "product_id": "coins_100", "type": "product", "title": "100 coins", "multi_quantity": true,
                    "prices": [
                        ["region": "US", "currency": "USD", "price": "0.99"],
                        ["region": "DE", "currency": "EUR", "price": "1.09"],
                    ],
                ],
                ["product_id": "garden_extra", "type": "product", "state": "DRAFT", "prices": []],
                [
                    "product_id": "pro", "type": "subscription", "title": "Pro",
                    "base_plans": [
                        [
                            "base_plan_id": "monthly", "period": "P1M",
                            "prices": [["region": "US", "currency": "USD", "price": "4.99"]],
                            "offers": [
                                ["offer_id": "trial", "trial": "P1W"], ["offer_id": "old", "state": "INACTIVE"],
                            ],
                        ],
                        [
                            "base_plan_id": "yearly", "period": "P1Y",
                            "prices": [["region": "US", "currency": "USD", "price": "39.99"]],
                        ],
                    ],
                ],
            ],
        ]
    }

    @Test func theCatalogIsServedInGooglesShapesBehindTheAccessToken() async throws {
        try await SandboxHarness.run { sandbox in
            let put = try await sandbox.send(.put, "/sandbox/google/products", json: Self.catalog)
            #expect(put.status == .ok, "\(String(buffer: put.body))")
            let token = try await sandbox.googleAccessToken()

            let oneTime = try sandbox.decode(
                GoogleOneTimeProductsPage.self,
                try await sandbox.send(.get, Self.base + "/oneTimeProducts", bearer: token))
            #expect(oneTime.nextPageToken == nil)
            let coins = try #require(oneTime.oneTimeProducts?.first { $0.productId == "coins_100" })
            let option = try #require(coins.purchaseOptions?.first)
            #expect(option.state == "ACTIVE")
            #expect(option.buyOption == GoogleBuyOption(legacyCompatible: true, multiQuantityEnabled: true))
            let us = try #require(option.regionalPricingAndAvailabilityConfigs?.first { $0.regionCode == "US" })
            #expect(us.price == GoogleMoney(currencyCode: "USD", units: "0", nanos: 990_000_000))
            #expect(us.availability == "AVAILABLE")
            #expect(coins.listings?.first?.title == "100 coins")

            let subscriptions = try sandbox.decode(
                GoogleSubscriptionsPage.self, try await sandbox.send(.get, Self.base + "/subscriptions", bearer: token))
            let pro = try #require(subscriptions.subscriptions?.first)
            #expect(pro.basePlans?.map(\.basePlanId) == ["monthly", "yearly"])
            #expect(pro.basePlans?.first?.autoRenewingBasePlanType?.billingPeriodDuration == "P1M")
            #expect(pro.basePlans?.first?.autoRenewingBasePlanType?.legacyCompatible == true)
            #expect(
                pro.basePlans?.last?.regionalConfigs?.first?.price
                    == GoogleMoney(currencyCode: "USD", units: "39", nanos: 990_000_000))

            let offers = try sandbox.decode(
                GoogleSubscriptionOffersPage.self,
                try await sandbox.send(.get, Self.base + "/subscriptions/-/basePlans/-/offers", bearer: token))
            #expect(offers.subscriptionOffers?.map(\.offerId) == ["trial", "old"])
            #expect(offers.subscriptionOffers?.first?.phases?.first?.duration == "P1W")
            let monthly = try await sandbox.send(
                .get, Self.base + "/subscriptions/pro/basePlans/monthly/offers", bearer: token)
            #expect(try sandbox.decode(GoogleSubscriptionOffersPage.self, monthly).subscriptionOffers?.count == 2)
            let unknown = try await sandbox.send(
                .get, Self.base + "/subscriptions/nope/basePlans/-/offers", bearer: token)
            #expect(unknown.status == .notFound)
            #expect(try sandbox.decode(GoogleErrorResponse.self, unknown).error.status == "NOT_FOUND")

            // Google's bearer rule: no token, and another package's token, are refused as the Play Developer API
            // refuses them.
            let none = try await sandbox.send(.get, Self.base + "/oneTimeProducts")
            #expect(none.status == .unauthorized)
            #expect(try sandbox.decode(GoogleErrorResponse.self, none).error.status == "UNAUTHENTICATED")
            let other = try await sandbox.googleAccessToken(packageName: "com.example.other")
            let denied = try await sandbox.send(.get, Self.base + "/subscriptions", bearer: other)
            #expect(denied.status == .unauthorized)
            #expect(try sandbox.decode(GoogleErrorResponse.self, denied).error.status == "PERMISSION_DENIED")
        }
    }

    @Test func pagesFollowNextPageTokenAndABadTokenIsRefused() async throws {
        try await SandboxHarness.run { sandbox in
            let products = (0..<5).map { ["product_id": "item_\($0)", "type": "product"] as [String: Any] }
            let put = try await sandbox.send(
                .put, "/sandbox/google/products", json: ["package_name": "com.example.garden", "products": products])
            #expect(put.status == .ok)
            let token = try await sandbox.googleAccessToken()
            var seen: [String] = []
            var next: String?
            var pages = 0
            repeat {
                let query = "?pageSize=2" + (next.map { "&pageToken=\($0)" } ?? "")
                let page = try sandbox.decode(
                    GoogleOneTimeProductsPage.self,
                    try await sandbox.send(.get, Self.base + "/oneTimeProducts" + query, bearer: token))
                seen += page.oneTimeProducts?.map(\.productId) ?? []
                next = page.nextPageToken
                pages += 1
            } while next != nil && pages < 10
            #expect(pages == 3)
            #expect(seen == (0..<5).map { "item_\($0)" })
            let bad = try await sandbox.send(.get, Self.base + "/oneTimeProducts?pageToken=nonsense", bearer: token)
            #expect(bad.status == .badRequest)
            #expect(try sandbox.decode(GoogleErrorResponse.self, bad).error.status == "INVALID_ARGUMENT")
        }
    }

    @Test func statesAndPricesChangeThroughTheControlsAndBadInputIsAProblem() async throws {
        try await SandboxHarness.run { sandbox in
            #expect(try await sandbox.send(.put, "/sandbox/google/products", json: Self.catalog).status == .ok)
            let inactive = try await sandbox.send(
                .patch, "/sandbox/google/products/coins_100",
                json: [
                    "package_name": "com.example.garden", "state": "INACTIVE",
                    "prices": [["region": "US", "currency": "USD", "price": "1.29"]],
                ])
            #expect(inactive.status == .ok, "\(String(buffer: inactive.body))")
            let yearly = try await sandbox.send(
                .patch, "/sandbox/google/products/pro",
                json: ["package_name": "com.example.garden", "base_plan_id": "yearly", "state": "INACTIVE"])
            #expect(yearly.status == .ok, "\(String(buffer: yearly.body))")

            let token = try await sandbox.googleAccessToken()
            let oneTime = try sandbox.decode(
                GoogleOneTimeProductsPage.self,
                try await sandbox.send(.get, Self.base + "/oneTimeProducts", bearer: token))
            let option = try #require(
                oneTime.oneTimeProducts?.first { $0.productId == "coins_100" }?.purchaseOptions?.first)
            #expect(option.state == "INACTIVE")
            #expect(option.regionalPricingAndAvailabilityConfigs?.map(\.price?.decimal) == ["1.29"])
            let pro = try sandbox.decode(
                GoogleSubscriptionsPage.self, try await sandbox.send(.get, Self.base + "/subscriptions", bearer: token))
            #expect(pro.subscriptions?.first?.basePlans?.map(\.state) == ["ACTIVE", "INACTIVE"])

            // Problems, never a crash: a base plan's state a one-time product has, an unknown product, a bad price.
            let planState = try await sandbox.send(
                .patch, "/sandbox/google/products/pro",
                json: ["package_name": "com.example.garden", "state": "INACTIVE_PUBLISHED"])
            #expect(planState.status == .unprocessableContent)
            let missing = try await sandbox.send(
                .patch, "/sandbox/google/products/nope",
                json: ["package_name": "com.example.garden", "state": "ACTIVE"])
            #expect(missing.status == .notFound)
            var bad = Self.catalog
            bad["products"] = [
                [
                    "product_id": "x", "type": "product",
                    "prices": [["region": "usa", "currency": "USD", "price": "1.2345678901"]],
                ]
            ]
            let refused = try await sandbox.send(.put, "/sandbox/google/products", json: bad)
            #expect(refused.status == .unprocessableContent)
            let problem = try sandbox.object(refused)
            let pointers = ((problem["errors"] as? [[String: Any]]) ?? []).compactMap { $0["pointer"] as? String }
            #expect(Set(pointers) == ["/products/0/prices/0/region", "/products/0/prices/0/price"], "\(problem)")
        }
    }

    @Test(arguments: [
        ("0.99", "0", 990_000_000), ("10", "10", 0), ("0", "0", 0), ("1.5", "1", 500_000_000),
        ("1234.000000001", "1234", 1),
    ])
    func moneyIsWholeUnitsAndBillionths(_ decimal: String, _ units: String, _ nanos: Int) throws {
        let money = try #require(GoogleMoney(currencyCode: "USD", decimal: decimal))
        #expect(money.units == units)
        #expect(money.nanos == nanos)
        #expect(money.decimal == decimal)
    }

    @Test(arguments: ["", ".5", "1.", "-1", "1.0000000001", "1,5", "abc"])
    func notADecimalIsNoMoney(_ text: String) {
        #expect(GoogleMoney(currencyCode: "USD", decimal: text) == nil)
    }
}
