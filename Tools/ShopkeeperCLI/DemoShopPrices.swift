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

    /// The demo's Stripe prices as the sandbox store takes them (`PUT /sandbox/stripe/prices`): every catalog product
    /// with a Stripe price id (`store_product_ids.stripe`), at its App Store price in the USA, in US cents. One-time,
    /// or recurring for an auto-renewable subscription (its period and free trial), so the demo web shop sells the
    /// same products as the apps.
    static var sandboxStripePrices: [[String: Any]] {
        catalog.products.compactMap { product -> [String: Any]? in
            guard let priceID = product.storeProductIDs[.stripe], let price = appStorePrices[product.productID]
            else { return nil }
            var entry: [String: Any] = [
                "id": priceID, "product": "prod_demo_\(product.productID)",
                "product_name": product.localizations["en"]?.name ?? product.productID,
                "unit_amount": price.usa / 10, "currency": "usd",
            ]
            if product.type == .autoRenewable, let period = product.duration.flatMap(stripeInterval) {
                entry["recurring"] = ["interval": period.interval, "interval_count": period.count]
                if let trial = product.trialDuration, let days = trialDays(trial) { entry["trial_period_days"] = days }
            }
            return entry
        }
    }

    /// Stripe's `recurring` of a period of one unit (`P1M`: month, 1); `nil` for a period Stripe cannot express.
    static func stripeInterval(_ period: ISODuration) -> (interval: String, count: Int)? {
        let parts = [
            ("year", period.years), ("month", period.months), ("week", period.weeks), ("day", period.days),
        ].filter { $0.1 > 0 }
        guard parts.count == 1, period.hours + period.minutes + period.seconds == 0, let (unit, count) = parts.first
        else { return nil }
        return (unit, count)
    }

    /// A free trial in whole days (`P7D`, `P1W`), as Stripe's `trial_period_days` takes it.
    static func trialDays(_ trial: ISODuration) -> Int? {
        guard trial.years + trial.months + trial.hours + trial.minutes + trial.seconds == 0 else { return nil }
        let days = trial.weeks * 7 + trial.days
        return days > 0 ? days : nil
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
