import ShopkeeperModels

extension DemoShop {
    /// What the demo's App Store products cost at the sandbox store, in milliunits: in the United States in dollars,
    /// in Germany in euros. `shopkeeper sandbox connect` registers them (`PUT /sandbox/apple/products`), so an app
    /// asking the sandbox store as StoreKit would (ShopkeeperKit's `products()`) shows real, localized prices.
    static let appStorePrices: [String: (usa: Int64, germany: Int64)] = [
        "extra_garden": (2990, 3490),
        "fertilizer_10": (990, 1190),
        "seeds_tulip": (990, 1190),
        "seeds_orchid": (1990, 2290),
        "greenhouse": (4990, 5990),
        "service_year": (19990, 22990),
        "garden_club": (2990, 3490),
    ]

    /// The demo's App Store products as the sandbox store takes them (`PUT /sandbox/apple/products`): their App
    /// Store ids, Apple's types, the English names, a price in each storefront, and a subscription's period and
    /// free trial.
    static var sandboxAppStoreProducts: [[String: Any]] {
        catalog.products.compactMap { product -> [String: Any]? in
            guard let storeID = product.storeProductIDs[.appStore], let price = appStorePrices[product.productID]
            else { return nil }
            let english = product.localizations["en"]
            var entry: [String: Any] = [
                "product_id": storeID, "type": appleType(product.type),
                "display_name": english?.name ?? product.productID,
                "prices": [
                    ["storefront": "USA", "currency": "USD", "price": price.usa],
                    ["storefront": "DEU", "currency": "EUR", "price": price.germany],
                ],
            ]
            if let description = english?.description { entry["description"] = description }
            if product.type == .autoRenewable, let period = product.duration {
                entry["subscription_period"] = period.description
                if let trial = product.trialDuration {
                    entry["introductory_offer"] = ["type": "FREE_TRIAL", "period": trial.description, "price": 0]
                }
            }
            return entry
        }
    }

    /// Apple's name of a product type.
    static func appleType(_ type: ProductType) -> String {
        switch type {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonRenewing: "Non-Renewing Subscription"
        }
    }
}
