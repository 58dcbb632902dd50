import ShopkeeperModels
import ShopkeeperStores
import Testing

@testable import Verifier

/// Play's monetization resources in the catalog sync's words: which option or base plan speaks for a product, its
/// state as a review state, its regional prices as decimals.
@Suite struct GooglePlayCatalogMappingTests {
    static func money(_ units: String, _ nanos: Int, _ currency: String = "USD") -> GoogleMoney {
        GoogleMoney(currencyCode: currency, units: units, nanos: nanos)
    }

    @Test(arguments: [
        ("ACTIVE", ReviewState.approved), ("INACTIVE", .removed), ("INACTIVE_PUBLISHED", .removed),
        ("DRAFT", .pendingDeveloperApproval), ("STATE_UNSPECIFIED", .pendingDeveloperApproval),
    ])
    func aStateIsAReviewState(_ state: String, _ review: ReviewState) {
        #expect(GooglePlayCatalogMapping.reviewState(state) == review)
    }

    @Test func aOneTimeProductIsReadFromItsLegacyCompatibleBuyOption() {
        let product = GoogleOneTimeProduct(
            packageName: "com.example", productId: "coins",
            listings: [
                GoogleProductListing(languageCode: "de-DE", title: "Münzen"),
                GoogleProductListing(languageCode: "en-US", title: "Coins"),
            ],
            purchaseOptions: [
                GooglePurchaseOption(
                    purchaseOptionId: "rent", state: "ACTIVE", buyOption: nil,
                    regionalPricingAndAvailabilityConfigs: []),
                GooglePurchaseOption(
                    purchaseOptionId: "buy", state: "INACTIVE",
                    buyOption: GoogleBuyOption(legacyCompatible: true, multiQuantityEnabled: true),
                    regionalPricingAndAvailabilityConfigs: [
                        GoogleRegionalPricing(
                            regionCode: "US", price: Self.money("0", 990_000_000), availability: "AVAILABLE"),
                        GoogleRegionalPricing(
                            regionCode: "DE", price: Self.money("1", 90_000_000, "EUR"), availability: "AVAILABLE"),
                        GoogleRegionalPricing(
                            regionCode: "FR", price: Self.money("1", 0, "EUR"), availability: "NO_LONGER_AVAILABLE"),
                    ]),
            ])
        let item = GooglePlayCatalogMapping.product(product)
        #expect(item.type == .consumable)
        #expect(item.referenceName == "Coins")
        #expect(item.storeState == "INACTIVE")
        #expect(item.reviewState == .removed)
        #expect(
            item.prices == [
                StorePrice(territory: "DE", currency: "EUR", price: "1.09"),
                StorePrice(territory: "US", currency: "USD", price: "0.99"),
            ])
    }

    @Test func aSubscriptionIsReadFromItsLegacyCompatibleBasePlanWithItsActiveOffers() {
        let plans = [
            GoogleBasePlan(
                basePlanId: "yearly", state: "ACTIVE",
                autoRenewingBasePlanType: GoogleRenewalType(billingPeriodDuration: "P1Y"), prepaidBasePlanType: nil,
                regionalConfigs: [
                    GoogleRegionalBasePlanConfig(
                        regionCode: "US", newSubscriberAvailability: true, price: Self.money("39", 990_000_000))
                ]),
            GoogleBasePlan(
                basePlanId: "monthly", state: "ACTIVE",
                autoRenewingBasePlanType: GoogleRenewalType(billingPeriodDuration: "P1M", legacyCompatible: true),
                prepaidBasePlanType: nil,
                regionalConfigs: [
                    GoogleRegionalBasePlanConfig(
                        regionCode: "US", newSubscriberAvailability: true, price: Self.money("4", 990_000_000)),
                    GoogleRegionalBasePlanConfig(
                        regionCode: "RU", newSubscriberAvailability: false, price: Self.money("300", 0, "RUB")),
                ]),
        ]
        func offer(_ id: String, _ plan: String, _ state: String) -> GoogleSubscriptionOffer {
            GoogleSubscriptionOffer(
                packageName: nil, productId: "pro", basePlanId: plan, offerId: id, state: state, phases: nil)
        }
        let item = GooglePlayCatalogMapping.product(
            GoogleSubscriptionProduct(packageName: nil, productId: "pro", listings: nil, basePlans: plans),
            offers: [
                offer("trial", "monthly", "ACTIVE"), offer("old", "monthly", "INACTIVE"),
                offer("y", "yearly", "ACTIVE"),
            ])
        #expect(item.type == .autoRenewable)
        #expect(item.referenceName == "pro")
        #expect(item.basePlanID == "monthly")
        #expect(item.subscriptionPeriod == "P1M")
        #expect(item.reviewState == .approved)
        #expect(item.offerIDs == ["trial"])
        #expect(item.subscriptionGroup == nil)
        #expect(item.prices == [StorePrice(territory: "US", currency: "USD", price: "4.99")])

        let prepaid = GooglePlayCatalogMapping.product(
            GoogleSubscriptionProduct(
                packageName: nil, productId: "pass", listings: nil,
                basePlans: [
                    GoogleBasePlan(
                        basePlanId: "week", state: "DRAFT", autoRenewingBasePlanType: nil,
                        prepaidBasePlanType: GoogleRenewalType(billingPeriodDuration: "P1W"), regionalConfigs: nil)
                ]),
            offers: [])
        #expect(prepaid.type == .nonRenewing)
        #expect(prepaid.subscriptionPeriod == "P1W")
        #expect(prepaid.reviewState == .pendingDeveloperApproval)
    }
}
