import ShopkeeperModels
import Testing

@testable import Catalog

/// The sync's rules, pure: what differs, what an accepted change writes, and that a product with purchases is never
/// deleted for a store's word.
@Suite struct CatalogSyncPlanTests {
    static func product(_ id: String, store: String, state: ReviewState = .approved) -> Product {
        Product(
            productID: id, type: .nonConsumable, storeProductIDs: [.appStore: store], reviewState: state,
            localizations: ["en": ProductLocalization(name: id)])
    }

    static func item(_ store: String, state: String, prices: [StorePrice] = []) -> StoreCatalogProduct {
        StoreCatalogProduct(
            storeProductID: store, type: .nonConsumable, referenceName: store, storeState: state,
            reviewState: state == "APPROVED" ? .approved : .waitingForReview, prices: prices)
    }

    static let usd = StorePrice(territory: "USA", currency: "USD", price: "0.99")

    @Test func aDryRunProposesEverythingAndWritesNothing() {
        let plan = CatalogSyncPlan(
            store: StoreCatalog(
                platform: .appStore,
                products: [
                    Self.item("s.a", state: "WAITING_FOR_REVIEW", prices: [Self.usd]),
                    Self.item("s.new", state: "APPROVED"),
                ],
                purchasedStoreProductIDs: []),
            products: [Self.product("a", store: "s.a"), Self.product("gone", store: "s.gone")], prices: [:],
            accept: ["review_state", "price", "new_product", "deleted_at_store"], apply: false)
        #expect(
            Set(plan.changes.map(\.id))
                == ["review_state:a", "price:a:USA", "new_product:s.new", "deleted_at_store:gone"])
        #expect(plan.changes.allSatisfy { $0.outcome == .proposed })
        #expect(plan.writes.isEmpty)
    }

    @Test func onlyAcceptedChangesAreWrittenAndPurchasedProductsAreKept() {
        let plan = CatalogSyncPlan(
            store: StoreCatalog(
                platform: .appStore, products: [Self.item("s.a", state: "APPROVED", prices: [Self.usd])],
                purchasedStoreProductIDs: ["s.bought"]),
            products: [
                Self.product("a", store: "s.a", state: .waitingForReview), Self.product("bought", store: "s.bought"),
                Self.product("unsold", store: "s.unsold"),
            ],
            prices: [:], accept: ["review_state:a", "deleted_at_store"], apply: true)
        let outcomes = Dictionary(uniqueKeysWithValues: plan.changes.map { ($0.id, $0.outcome) })
        #expect(outcomes["review_state:a"] == .applied)
        #expect(outcomes["price:a:USA"] == .proposed)
        #expect(outcomes["deleted_at_store:bought"] == .kept)
        #expect(outcomes["deleted_at_store:unsold"] == .applied)
        #expect(
            plan.writes == [
                .setReviewState(productID: "a", .approved), .markRemoved(productID: "bought"),
                .delete(productID: "unsold"),
            ])
    }

    @Test(arguments: [
        ("0.99", "USD", "0.990", "USD", true), ("1", "EUR", "1.00", "EUR", true), ("0.99", "USD", "1.09", "USD", false),
        ("0.99", "USD", "0.99", "CAD", false),
    ])
    func pricesCompareByAmountAndCurrency(a: String, ac: String, b: String, bc: String, same: Bool) {
        #expect(
            CatalogSyncPlan.samePrice(
                StorePrice(territory: "USA", currency: ac, price: a),
                StorePrice(territory: "USA", currency: bc, price: b))
                == same)
    }

    @Test func aNewProductThatCannotBeMadeFromTheStoresDataIsRefused() {
        var item = Self.item("s.pass", state: "APPROVED")
        item.type = .nonRenewing
        let plan = CatalogSyncPlan(
            store: StoreCatalog(platform: .appStore, products: [item], purchasedStoreProductIDs: []), products: [],
            prices: [:], accept: ["new_product"], apply: true)
        #expect(plan.changes.first?.outcome == .refused)
        #expect(plan.changes.first?.detail?.contains("duration") == true)
        #expect(plan.writes.isEmpty)
    }
}

/// The same rules over Google Play's catalog: Play's ISO 8601 billing periods and alpha-2 regions, its states.
@Suite struct CatalogSyncPlanGooglePlayTests {
    @Test func aNewPlaySubscriptionTakesItsBasePlansPeriodAndAnInactiveProductIsRemoved() {
        let store = StoreCatalog(
            platform: .playStore,
            products: [
                StoreCatalogProduct(
                    storeProductID: "pro", type: .autoRenewable, referenceName: "Pro", storeState: "ACTIVE",
                    reviewState: .approved, subscriptionPeriod: "P1M",
                    prices: [StorePrice(territory: "US", currency: "USD", price: "4.99")], basePlanID: "monthly"),
                StoreCatalogProduct(
                    storeProductID: "coins", type: .consumable, referenceName: "Coins", storeState: "INACTIVE",
                    reviewState: .removed, prices: []),
            ],
            purchasedStoreProductIDs: ["coins"])
        let coins = Product(
            productID: "coins", type: .consumable, storeProductIDs: [.playStore: "coins"], reviewState: .approved,
            consumableQuantity: 100, localizations: ["en": ProductLocalization(name: "Coins")])
        let plan = CatalogSyncPlan(
            store: store, products: [coins], prices: [:], accept: ["new_product", "review_state"], apply: true)
        let changes = Dictionary(uniqueKeysWithValues: plan.changes.map { ($0.id, $0) })
        #expect(changes["new_product:pro"]?.to == "auto_renewable, ACTIVE, base plan monthly, 1 territories")
        #expect(changes["review_state:coins"]?.detail == "Google Play: INACTIVE")
        #expect(changes["review_state:coins"]?.to == "removed")
        guard case .create(let product, let prices)? = plan.writes.first else {
            Issue.record("no product created: \(plan.writes)")
            return
        }
        #expect(product.duration == ISODuration("P1M"))
        #expect(product.storeProductIDs == [.playStore: "pro"])
        #expect(prices.map(\.territory) == ["US"])
        #expect(plan.writes.last == .setReviewState(productID: "coins", .removed))
    }
}
