import ShopkeeperModels

/// The offerings answer for one build: each offering with the packages whose product the build may see (the
/// catalog's visibility rules, ``CatalogVisibility``) and its paywall in the closest locale. Pure.
enum OfferingsRenderer {
    static func view(
        snapshot: CatalogSnapshot, query: CatalogQuery, current: String?, ruleID: String?,
        experiment: ExperimentPick? = nil
    ) -> OfferingsView {
        let products = Dictionary(
            snapshot.products.map { ($0.productID, $0) }, uniquingKeysWith: { first, _ in first })
        return OfferingsView(
            currentOfferingID: current,
            ruleID: ruleID,
            offerings: snapshot.offerings.map {
                view(of: $0, products: products, query: query, prices: snapshot.storePrices)
            },
            experiment: experiment
        )
    }

    static func view(
        of offering: Offering, products: [String: Product], query: CatalogQuery, prices: SyncedPrices = [:]
    ) -> OfferingView {
        let packages = offering.packages.compactMap { package -> PackageView? in
            guard let product = products[package.productID],
                var item = CatalogVisibility.item(for: product, query: query, prices: prices)
            else { return nil }
            if item.availability == .purchasable || item.availability == .requiresUpdate,
                let storeID = package.storeProductIDs[query.platform]
            {
                item.storeProductID = storeID
            }
            return PackageView(packageID: package.packageID, product: item)
        }
        return OfferingView(
            offeringID: offering.offeringID,
            description: offering.description,
            packages: packages,
            paywall: offering.paywall.flatMap { paywall(of: $0, locale: query.locale) }
        )
    }

    /// The paywall's texts in the locale ``LocaleMatcher`` picks, as product texts are picked.
    static func paywall(of paywall: Paywall, locale requested: String?) -> PaywallView? {
        let locale = LocaleMatcher.bestMatch(
            requested: requested, available: paywall.localizations.keys, defaultLocale: paywall.defaultLocale)
        guard let text = paywall.localizations[locale] ?? paywall.localizations[paywall.defaultLocale] else {
            return nil
        }
        return PaywallView(
            layout: paywall.layout, colors: paywall.colors, imageURLs: paywall.imageURLs, locale: locale,
            title: text.title, subtitle: text.subtitle, features: text.features, callToAction: text.callToAction)
    }
}
