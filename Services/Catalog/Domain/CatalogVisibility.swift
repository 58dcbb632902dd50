import ShopkeeperModels

/// Who is asking for the catalog: one build of one app version on one platform.
struct CatalogQuery: Hashable, Sendable {
    var platform: StorePlatform
    var build: BuildKind
    var appVersion: AppVersion
    var variant: String?
    var locale: String?
}

/// The rules that decide what a build sees of a catalog. Pure: tested with tables.
enum CatalogVisibility {
    /// The items `query` sees, in sort order.
    static func items(of products: [Product], for query: CatalogQuery) -> [CatalogItem] {
        products
            .compactMap { item(for: $0, query: query) }
            .sorted { ($0.sortOrder, $0.productID) < ($1.sortOrder, $1.productID) }
    }

    /// How `product` appears to `query`, or `nil` when it is hidden.
    static func item(for product: Product, query: CatalogQuery) -> CatalogItem? {
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
        )
    }
}
