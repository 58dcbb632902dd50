import Foundation

/// The catalog as one build of the app sees it (`GET /v1/catalog`, schema `CatalogView`).
public struct CatalogView: Codable, Hashable, Sendable {
    /// The store the build is sold through.
    public var platform: StorePlatform
    /// The kind of build asked for.
    public var build: BuildKind
    /// The app version asked for, in canonical form.
    public var appVersion: String
    /// The variant asked for, when one was given.
    public var variant: String?
    /// The locale asked for, when one was given.
    public var locale: String?
    /// The visible products, in sort order.
    public var products: [CatalogItem]

    enum CodingKeys: String, CodingKey {
        case platform, build, variant, locale, products
        case appVersion = "app_version"
    }

    /// The product with this catalog id, if the build sees it.
    public func product(_ productID: String) -> CatalogItem? {
        products.first { $0.productID == productID }
    }
}

/// One product as the calling build sees it (schema `CatalogItem`).
public struct CatalogItem: Codable, Hashable, Sendable, Identifiable {
    /// The developer's product id.
    public var productID: String
    /// What kind of product it is.
    public var type: ProductType
    /// How this build may obtain it.
    public var availability: Availability
    /// The id to buy it with on this platform; absent for free and included products.
    public var storeProductID: String?
    /// Development builds only: where the product stands in the store's review.
    public var reviewState: ServerValue?
    /// Development builds only: the developer's sale switch.
    public var clearedForSale: Bool?
    /// The oldest app version that may buy it.
    public var minAppVersion: String?
    /// Entitlement ids a purchase unlocks.
    public var entitlements: [String]
    /// Units credited per purchase (consumables).
    public var consumableQuantity: Int?
    /// Length of one subscription period (ISO 8601).
    public var duration: String?
    /// Length of the free trial (ISO 8601).
    public var trialDuration: String?
    /// Subscription group or shelf.
    public var group: String?
    /// Position in the shop.
    public var sortOrder: Int
    /// The locale of the texts.
    public var locale: String
    /// Display name.
    public var name: String
    /// Description.
    public var description: String?
    /// A page describing the product.
    public var descriptionURL: String?
    /// Screenshots.
    public var screenshotURLs: [String]
    /// A price to show before the store's own price has loaded.
    public var priceHint: String?

    /// The product id.
    public var id: String { productID }

    enum CodingKeys: String, CodingKey {
        case type, availability, entitlements, duration, group, locale, name, description
        case productID = "product_id"
        case storeProductID = "store_product_id"
        case reviewState = "review_state"
        case clearedForSale = "cleared_for_sale"
        case minAppVersion = "min_app_version"
        case consumableQuantity = "consumable_quantity"
        case trialDuration = "trial_duration"
        case sortOrder = "sort_order"
        case descriptionURL = "description_url"
        case screenshotURLs = "screenshot_urls"
        case priceHint = "price_hint"
    }
}
