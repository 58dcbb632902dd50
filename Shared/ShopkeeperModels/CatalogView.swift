/// The catalog as one build of one app sees it (`GET /v1/catalog`).
package struct CatalogView: Codable, Hashable, Sendable {
    package var platform: StorePlatform
    package var build: BuildKind
    package var appVersion: String
    package var variant: String?
    package var locale: String?
    package var products: [CatalogItem]

    package init(
        platform: StorePlatform,
        build: BuildKind,
        appVersion: String,
        variant: String?,
        locale: String?,
        products: [CatalogItem]
    ) {
        self.platform = platform
        self.build = build
        self.appVersion = appVersion
        self.variant = variant
        self.locale = locale
        self.products = products
    }

    package enum CodingKeys: String, CodingKey {
        case platform, build, variant, locale, products
        case appVersion = "app_version"
    }
}

/// One product as the calling build sees it.
package struct CatalogItem: Codable, Hashable, Sendable {
    package var productID: String
    package var type: ProductType
    package var availability: Availability
    /// The id to buy it with on the caller's platform; absent for free and included products.
    package var storeProductID: String?
    /// Development builds only: where the product stands in review, and the developer's sale switch.
    package var reviewState: ReviewState?
    package var clearedForSale: Bool?
    package var minAppVersion: String?
    package var entitlements: [String]
    package var consumableQuantity: Int?
    package var duration: String?
    package var trialDuration: String?
    package var group: String?
    package var sortOrder: Int
    /// The locale the texts below are in.
    package var locale: String
    package var name: String
    package var description: String?
    package var descriptionURL: String?
    package var screenshotURLs: [String]
    package var priceHint: String?

    package init(
        productID: String,
        type: ProductType,
        availability: Availability,
        storeProductID: String?,
        reviewState: ReviewState?,
        clearedForSale: Bool?,
        minAppVersion: String?,
        entitlements: [String],
        consumableQuantity: Int?,
        duration: String?,
        trialDuration: String?,
        group: String?,
        sortOrder: Int,
        locale: String,
        name: String,
        description: String?,
        descriptionURL: String?,
        screenshotURLs: [String],
        priceHint: String?
    ) {
        self.productID = productID
        self.type = type
        self.availability = availability
        self.storeProductID = storeProductID
        self.reviewState = reviewState
        self.clearedForSale = clearedForSale
        self.minAppVersion = minAppVersion
        self.entitlements = entitlements
        self.consumableQuantity = consumableQuantity
        self.duration = duration
        self.trialDuration = trialDuration
        self.group = group
        self.sortOrder = sortOrder
        self.locale = locale
        self.name = name
        self.description = description
        self.descriptionURL = descriptionURL
        self.screenshotURLs = screenshotURLs
        self.priceHint = priceHint
    }

    package enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case type, availability
        case storeProductID = "store_product_id"
        case reviewState = "review_state"
        case clearedForSale = "cleared_for_sale"
        case minAppVersion = "min_app_version"
        case entitlements
        case consumableQuantity = "consumable_quantity"
        case duration
        case trialDuration = "trial_duration"
        case group
        case sortOrder = "sort_order"
        case locale, name, description
        case descriptionURL = "description_url"
        case screenshotURLs = "screenshot_urls"
        case priceHint = "price_hint"
    }
}
