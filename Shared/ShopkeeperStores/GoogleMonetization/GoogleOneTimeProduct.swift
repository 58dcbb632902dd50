/// A one-time product of the Android Publisher API v3 (`monetization.onetimeproducts`, Google's `OneTimeProduct`):
/// the fields the catalog sync reads. Its price and state live on its purchase options.
package struct GoogleOneTimeProduct: Codable, Hashable, Sendable {
    package var packageName: String?
    package var productId: String
    package var listings: [GoogleProductListing]?
    package var purchaseOptions: [GooglePurchaseOption]?

    package init(
        packageName: String?, productId: String, listings: [GoogleProductListing]?,
        purchaseOptions: [GooglePurchaseOption]?
    ) {
        self.packageName = packageName
        self.productId = productId
        self.listings = listings
        self.purchaseOptions = purchaseOptions
    }
}

/// A product's store listing in one language (Google's `OneTimeProductListing` and `SubscriptionListing`).
package struct GoogleProductListing: Codable, Hashable, Sendable {
    /// BCP-47 (`en-US`).
    package var languageCode: String
    package var title: String
    package var description: String?
    /// Subscriptions only.
    package var benefits: [String]?

    package init(languageCode: String, title: String, description: String? = nil, benefits: [String]? = nil) {
        self.languageCode = languageCode
        self.title = title
        self.description = description
        self.benefits = benefits
    }
}

/// One way to buy a one-time product (Google's `OneTimeProductPurchaseOption`).
package struct GooglePurchaseOption: Codable, Hashable, Sendable {
    package var purchaseOptionId: String
    /// `DRAFT`, `ACTIVE`, `INACTIVE` or `INACTIVE_PUBLISHED` (kept as Google writes it).
    package var state: String?
    /// Present for an option that is bought (the other kind, `rentOption`, is not read).
    package var buyOption: GoogleBuyOption?
    package var regionalPricingAndAvailabilityConfigs: [GoogleRegionalPricing]?

    package init(
        purchaseOptionId: String, state: String?, buyOption: GoogleBuyOption?,
        regionalPricingAndAvailabilityConfigs: [GoogleRegionalPricing]?
    ) {
        self.purchaseOptionId = purchaseOptionId
        self.state = state
        self.buyOption = buyOption
        self.regionalPricingAndAvailabilityConfigs = regionalPricingAndAvailabilityConfigs
    }
}

/// Google's `OneTimeProductBuyPurchaseOption`.
package struct GoogleBuyOption: Codable, Hashable, Sendable {
    /// The option older Play Billing Library flows see (at most one per product).
    package var legacyCompatible: Bool?
    /// Whether one checkout may buy several.
    package var multiQuantityEnabled: Bool?

    package init(legacyCompatible: Bool?, multiQuantityEnabled: Bool?) {
        self.legacyCompatible = legacyCompatible
        self.multiQuantityEnabled = multiQuantityEnabled
    }
}

/// A purchase option's price and availability in one region
/// (Google's `OneTimeProductPurchaseOptionRegionalPricingAndAvailabilityConfig`).
package struct GoogleRegionalPricing: Codable, Hashable, Sendable {
    /// ISO 3166-1 alpha-2 (`US`).
    package var regionCode: String
    package var price: GoogleMoney?
    /// `AVAILABLE`, `NO_LONGER_AVAILABLE`, `AVAILABLE_IF_RELEASED`, `AVAILABLE_FOR_OFFERS_ONLY`.
    package var availability: String?

    package init(regionCode: String, price: GoogleMoney?, availability: String?) {
        self.regionCode = regionCode
        self.price = price
        self.availability = availability
    }
}

/// `GET .../oneTimeProducts`: Google's `ListOneTimeProductsResponse`.
package struct GoogleOneTimeProductsPage: Codable, Hashable, Sendable {
    package var oneTimeProducts: [GoogleOneTimeProduct]?
    /// Absent on the last page.
    package var nextPageToken: String?

    package init(oneTimeProducts: [GoogleOneTimeProduct]?, nextPageToken: String?) {
        self.oneTimeProducts = oneTimeProducts
        self.nextPageToken = nextPageToken
    }
}
