import ShopkeeperModels

/// The demo shop the run command seeds: a flower-garden game. Its paid products are sold in the apps (App Store,
/// Google Play) and on the web (the sandbox's Stripe prices `price_demo_<product id>`, which `sandbox connect`
/// registers; the demo web shop in `Clients/shopkeeper-web/demo` sells them).
enum DemoShop {
    static let appName = "Demo Garden"
    static let bundleID = "com.shopkeeper.demo.garden"

    static var catalog: CatalogDocument {
        CatalogDocument(products: [
            Product(
                productID: "extra_garden",
                type: .nonConsumable,
                storeProductIDs: [
                    .appStore: "\(bundleID).extra_garden", .playStore: "extra_garden",
                    .stripe: "price_demo_extra_garden",
                ],
                // The garden was paid up front before 2.0: its first buyers keep the extra garden.
                grandfatheredBelowVersion: AppVersion("2.0"),
                entitlements: ["extra_garden"],
                localizations: [
                    "en": .init(
                        name: "Extra Garden", description: "A second garden behind the house.", priceHint: "$2.99"),
                    "de": .init(name: "Zusätzlicher Garten", description: "Ein zweiter Garten hinter dem Haus."),
                ],
                sortOrder: 10,
                group: "gardens"
            ),
            Product(
                productID: "fertilizer_10",
                type: .consumable,
                storeProductIDs: [
                    .appStore: "\(bundleID).fertilizer_10", .playStore: "fertilizer_10",
                    .stripe: "price_demo_fertilizer_10",
                ],
                consumableQuantity: 10,
                localizations: [
                    "en": .init(
                        name: "Fertilizer (10 doses)", description: "Makes any flower grow at once.", priceHint: "$0.99"
                    ),
                    "de": .init(name: "Dünger (10 Portionen)"),
                ],
                sortOrder: 20,
                group: "supplies"
            ),
            Product(
                productID: "seeds_sunflower",
                type: .nonConsumable,
                free: true,
                entitlements: ["seeds_sunflower"],
                localizations: ["en": .init(name: "Sunflower Seeds", description: "A free pack to start with.")],
                sortOrder: 30,
                group: "seeds"
            ),
            Product(
                productID: "seeds_tulip",
                type: .nonConsumable,
                storeProductIDs: [
                    .appStore: "\(bundleID).seeds_tulip", .playStore: "seeds_tulip", .stripe: "price_demo_seeds_tulip",
                ],
                includedInVariants: ["full"],
                entitlements: ["seeds_tulip"],
                localizations: ["en": .init(name: "Tulip Seeds", priceHint: "$0.99")],
                sortOrder: 31,
                group: "seeds"
            ),
            Product(
                productID: "seeds_orchid",
                type: .nonConsumable,
                storeProductIDs: [
                    .appStore: "\(bundleID).seeds_orchid", .playStore: "seeds_orchid",
                    .stripe: "price_demo_seeds_orchid",
                ],
                reviewState: .waitingForReview,
                entitlements: ["seeds_orchid"],
                localizations: ["en": .init(name: "Orchid Seeds", priceHint: "$1.99")],
                sortOrder: 32,
                group: "seeds"
            ),
            Product(
                productID: "greenhouse",
                type: .nonConsumable,
                storeProductIDs: [
                    .appStore: "\(bundleID).greenhouse", .playStore: "greenhouse", .stripe: "price_demo_greenhouse",
                ],
                minAppVersion: AppVersion("2.0"),
                belowMinVersion: .requiresUpdate,
                entitlements: ["greenhouse"],
                localizations: [
                    "en": .init(name: "Greenhouse", description: "Grow flowers all winter.", priceHint: "$4.99")
                ],
                sortOrder: 40,
                group: "gardens"
            ),
            Product(
                productID: "service_year",
                type: .nonRenewing,
                storeProductIDs: [.appStore: "\(bundleID).service_year", .playStore: "service_year"],
                entitlements: ["garden_service"],
                duration: ISODuration("P1Y"),
                localizations: [
                    "en": .init(
                        name: "Garden Service (1 year)", description: "A gardener visits every week.",
                        priceHint: "$19.99")
                ],
                sortOrder: 50,
                group: "services"
            ),
            Product(
                productID: "garden_club",
                type: .autoRenewable,
                storeProductIDs: [
                    .appStore: "\(bundleID).garden_club", .playStore: "garden_club", .stripe: "price_demo_garden_club",
                ],
                entitlements: ["garden_club"],
                duration: ISODuration("P1M"),
                trialDuration: ISODuration("P7D"),
                localizations: [
                    "en": .init(
                        name: "Garden Club", description: "A rare seed every month; the first week is free.",
                        priceHint: "$2.99/month")
                ],
                sortOrder: 60,
                group: "club"
            ),
        ])
    }

    /// The seed packs' content: one small pack per seed product, so every content walk of the README works on a
    /// fresh run.
    static let seedPacks: [(product: String, flower: String, color: String)] = [
        ("seeds_sunflower", "Sunflower", "#f5c518"),
        ("seeds_tulip", "Tulip", "#e0245e"),
        ("seeds_orchid", "Orchid", "#a45ee5"),
    ]

    /// The files of a seed pack: a description and a drawing of the flower.
    static func packFiles(flower: String, color: String) -> [(path: String, contents: String)] {
        let name = flower.lowercased()
        let description = """
            {"flower": "\(flower)", "seeds": 12, "days_to_bloom": 21, "image": "images/\(name).svg"}

            """
        let drawing = """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">
              <rect x="30" y="30" width="4" height="32" fill="#2e7d32"/>
              <circle cx="32" cy="24" r="14" fill="\(color)"/>
              <circle cx="32" cy="24" r="5" fill="#5d4037"/>
            </svg>

            """
        return [("pack.json", description), ("images/\(name).svg", drawing)]
    }
}
