import ShopkeeperModels

/// Who is asking for the catalog: one build of one app version on one platform.
struct CatalogQuery: Hashable, Sendable {
    var platform: StorePlatform
    var build: BuildKind
    var appVersion: AppVersion
    var variant: String?
    var locale: String?
    /// The device's storefront in its store's words (`USA` at the App Store, `US` at Google Play): the synced price
    /// there is the `price_hint` of a product without one of its own.
    var storefront: String? = nil
}

/// The synced store prices of an app's products: by platform, product id and territory.
typealias SyncedPrices = [StorePlatform: [String: [String: StorePrice]]]

/// The rules that decide what a build sees of a catalog. Pure: tested with tables.
enum CatalogVisibility {
    /// The items `query` sees, in sort order; `prices` are the synced store prices (``CatalogSnapshot/storePrices``).
    static func items(of products: [Product], for query: CatalogQuery, prices: SyncedPrices = [:]) -> [CatalogItem] {
        products
            .compactMap { item(for: $0, query: query, prices: prices) }
            .sorted { ($0.sortOrder, $0.productID) < ($1.sortOrder, $1.productID) }
    }

    /// How `product` appears to `query`, or `nil` when it is hidden. Its `price_hint` is the localization's own, or
    /// else the price the last accepted store sync kept for the query's storefront (`2.99 USD`), so that an app whose
    /// store cannot load its products still shows the store's price.
    static func item(for product: Product, query: CatalogQuery, prices: SyncedPrices = [:]) -> CatalogItem? {
        switch query.build {
        case .distribution:
            guard product.reviewState == .approved, product.clearedForSale else { return nil }
        case .development:
            guard product.reviewState != .removed else { return nil }
        }
        let availability: Availability
        let storeProductID: String?
        if let variant = query.variant, product.includedInVariants.contains(variant) {
            availability = .included
            storeProductID = nil
        } else if let minimum = product.minAppVersion, query.appVersion < minimum {
            guard product.belowMinVersion == .requiresUpdate,
                product.free || product.storeProductIDs[query.platform] != nil
            else { return nil }
            availability = .requiresUpdate
            storeProductID = product.free ? nil : product.storeProductIDs[query.platform]
        } else if product.free {
            availability = .free
            storeProductID = nil
        } else if let storeID = product.storeProductIDs[query.platform] {
            availability = .purchasable
            storeProductID = storeID
        } else {
            // Not sold on this platform.
            return nil
        }
        let locale = LocaleMatcher.bestMatch(
            requested: query.locale,
            available: product.localizations.keys,
            defaultLocale: product.defaultLocale
        )
        let text = product.localizations[locale] ?? product.localizations[product.defaultLocale]
        let development = query.build == .development
        return CatalogItem(
            productID: product.productID,
            type: product.type,
            availability: availability,
            storeProductID: storeProductID,
            reviewState: development ? product.reviewState : nil,
            clearedForSale: development ? product.clearedForSale : nil,
            minAppVersion: product.minAppVersion?.description,
            entitlements: product.entitlements,
            consumableQuantity: product.consumableQuantity,
            duration: product.duration?.description,
            trialDuration: product.trialDuration?.description,
            group: product.group,
            sortOrder: product.sortOrder,
            locale: locale,
            name: text?.name ?? product.productID,
            description: text?.description,
            descriptionURL: text?.descriptionURL,
            screenshotURLs: text?.screenshotURLs ?? [],
            priceHint: text?.priceHint
                ?? syncedHint(product, storeProductID: storeProductID, query: query, prices: prices)
        )
    }

    /// The synced price of `product` in the query's storefront on its platform, as `<price> <currency>`; `nil` when
    /// the product is not sold there through the store, or no sync kept a price for that storefront.
    static func syncedHint(_ product: Product, storeProductID: String?, query: CatalogQuery, prices: SyncedPrices)
        -> String?
    {
        guard storeProductID != nil, let storefront = query.storefront,
            let price = prices[query.platform]?[product.productID]?[storefront]
        else { return nil }
        return "\(price.price) \(price.currency)"
    }
}
