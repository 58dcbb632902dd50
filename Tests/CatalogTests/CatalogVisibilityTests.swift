import ShopkeeperModels
import Testing

@testable import Catalog

@Suite struct CatalogVisibilityTests {
    static func product(
        review: ReviewState = .approved,
        cleared: Bool = true,
        free: Bool = false,
        variants: [String] = [],
        minVersion: String? = nil,
        below: BelowMinVersionBehavior = .hide,
        stores: [StorePlatform: String] = [.appStore: "com.x.p", .playStore: "p"]
    ) -> Product {
        Product(
            productID: "p",
            type: .nonConsumable,
            storeProductIDs: stores,
            reviewState: review,
            clearedForSale: cleared,
            free: free,
            includedInVariants: variants,
            minAppVersion: minVersion.flatMap(AppVersion.init),
            belowMinVersion: below,
            localizations: ["en": .init(name: "P")]
        )
    }

    static func query(
        build: BuildKind = .distribution,
        version: String = "1.0",
        variant: String? = nil,
        platform: StorePlatform = .appStore
    ) -> CatalogQuery {
        CatalogQuery(platform: platform, build: build, appVersion: AppVersion(version)!, variant: variant, locale: nil)
    }

    /// Review state x cleared switch x build kind: nil means hidden.
    @Test(arguments: [
        (ReviewState.approved, true, BuildKind.distribution, Availability?.some(.purchasable)),
        (.approved, false, .distribution, nil),
        (.approved, false, .development, .purchasable),
        (.waitingForReview, true, .distribution, nil),
        (.waitingForReview, true, .development, .purchasable),
        (.inReview, true, .development, .purchasable),
        (.pendingDeveloperApproval, true, .development, .purchasable),
        (.pendingDeveloperApproval, true, .distribution, nil),
        (.rejected, true, .distribution, nil),
        (.rejected, true, .development, .purchasable),
        (.removed, true, .development, nil),
        (.removed, true, .distribution, nil),
    ])
    func reviewStateMatrix(review: ReviewState, cleared: Bool, build: BuildKind, expected: Availability?) {
        let item = CatalogVisibility.item(
            for: Self.product(review: review, cleared: cleared), query: Self.query(build: build))
        #expect(item?.availability == expected)
        if build == .development, let item {
            #expect(item.reviewState == review)
            #expect(item.clearedForSale == cleared)
        }
        if build == .distribution { #expect(item?.reviewState == nil) }
    }

    /// Minimum app version, free, included variants and platforms.
    @Test(arguments: [
        ("min 2.0 hide, app 1.0", product(minVersion: "2.0"), query(version: "1.0"), Availability?.none, String?.none),
        ("min 2.0 hide, app 2.0", product(minVersion: "2.0"), query(version: "2"), .purchasable, "com.x.p"),
        (
            "min 2.0 requires update", product(minVersion: "2.0", below: .requiresUpdate), query(version: "1.9.9"),
            .requiresUpdate, "com.x.p"
        ),
        ("free", product(free: true), query(), .free, nil),
        ("included in caller's variant", product(variants: ["full"]), query(variant: "full"), .included, nil),
        ("included in another variant", product(variants: ["full"]), query(variant: "lite"), .purchasable, "com.x.p"),
        ("play store id", product(), query(platform: .playStore), .purchasable, "p"),
        ("not sold on play store", product(stores: [.appStore: "com.x.p"]), query(platform: .playStore), nil, nil),
        (
            "included beats minimum version", product(variants: ["full"], minVersion: "3.0"), query(variant: "full"),
            .included, nil
        ),
    ])
    func availabilityRules(
        name: String,
        product: Product,
        query: CatalogQuery,
        expected: Availability?,
        storeID: String?
    ) {
        let item = CatalogVisibility.item(for: product, query: query)
        #expect(item?.availability == expected, "\(name)")
        #expect(item?.storeProductID == storeID, "\(name)")
    }

    @Test func sortsBySortOrderThenID() {
        var a = Self.product()
        a.productID = "b"
        a.sortOrder = 1
        var b = Self.product()
        b.productID = "a"
        b.sortOrder = 1
        var c = Self.product()
        c.productID = "z"
        c.sortOrder = 0
        let items = CatalogVisibility.items(of: [a, b, c], for: Self.query())
        #expect(items.map(\.productID) == ["z", "a", "b"])
    }

    @Test(
        arguments: [
            ("de-AT", "de"), ("de_at", "de"), ("pt-BR", "pt-BR"), ("pt-PT", "pt-BR"), ("fr", "en"), (nil, "en"),
            ("EN", "en"),
        ] as [(String?, String)])
    func localeFallback(requested: String?, expected: String) {
        let match = LocaleMatcher.bestMatch(
            requested: requested, available: ["en", "de", "pt-BR"], defaultLocale: "en")
        #expect(match == expected)
    }
}

/// The synced store price as the price hint of a product without one of its own.
@Suite struct CatalogSyncedPriceHintTests {
    static let prices: SyncedPrices = [
        .appStore: ["p": ["USA": StorePrice(territory: "USA", currency: "USD", price: "2.99")]],
        .playStore: ["p": ["US": StorePrice(territory: "US", currency: "USD", price: "3.49")]],
    ]

    static func query(_ platform: StorePlatform, storefront: String?) -> CatalogQuery {
        CatalogQuery(
            platform: platform, build: .distribution, appVersion: AppVersion("1.0")!, variant: nil, locale: nil,
            storefront: storefront)
    }

    @Test func theStorefrontsSyncedPriceIsTheHint() {
        let product = CatalogVisibilityTests.product()
        let apple = CatalogVisibility.item(
            for: product, query: Self.query(.appStore, storefront: "USA"), prices: Self.prices)
        #expect(apple?.priceHint == "2.99 USD")
        let play = CatalogVisibility.item(
            for: product, query: Self.query(.playStore, storefront: "US"), prices: Self.prices)
        #expect(play?.priceHint == "3.49 USD")
        // Another storefront, none named, or a free product: no synced hint.
        #expect(
            CatalogVisibility.item(for: product, query: Self.query(.appStore, storefront: "DEU"), prices: Self.prices)?
                .priceHint == nil)
        #expect(
            CatalogVisibility.item(for: product, query: Self.query(.appStore, storefront: nil), prices: Self.prices)?
                .priceHint == nil)
        #expect(
            CatalogVisibility.item(
                for: CatalogVisibilityTests.product(free: true), query: Self.query(.appStore, storefront: "USA"),
                prices: Self.prices)?.priceHint == nil)
    }

    @Test func theProductsOwnHintComesFirst() {
        var product = CatalogVisibilityTests.product()
        product.localizations["en"]?.priceHint = "$1.99"
        let item = CatalogVisibility.item(
            for: product, query: Self.query(.appStore, storefront: "USA"), prices: Self.prices)
        #expect(item?.priceHint == "$1.99")
    }
}
