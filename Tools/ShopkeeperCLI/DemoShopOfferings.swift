import ShopkeeperModels

extension DemoShop {
    /// The demo shop's offerings: a default one, and one for German storefronts (a yearly plan first, German texts).
    static var offerings: OfferingsDocument {
        let colors = ["background": "#F1F8E9", "accent": "#2E7D32"]
        let images = ["header": "https://shopkeeper.dev/demo/garden-club.png"]
        return OfferingsDocument(
            offerings: [
                Offering(
                    offeringID: "standard",
                    description: "The garden club by the month, and the extra garden.",
                    isDefault: true,
                    packages: [
                        OfferingPackage(packageID: "$monthly", productID: "garden_club"),
                        OfferingPackage(packageID: "$lifetime", productID: "extra_garden"),
                    ],
                    paywall: Paywall(
                        layout: "hero", colors: colors, imageURLs: images, defaultLocale: "en",
                        localizations: [
                            "en": .init(
                                title: "Grow a rarer garden", subtitle: "Join the Garden Club",
                                features: ["A rare seed every month", "The first week free"],
                                callToAction: "Start the free week"),
                            "de": .init(
                                title: "Ein seltenerer Garten", subtitle: "Werde Mitglied im Gartenclub",
                                features: ["Jeden Monat ein seltener Samen", "Die erste Woche gratis"],
                                callToAction: "Gratiswoche starten"),
                        ])
                ),
                Offering(
                    offeringID: "germany",
                    description: "For German storefronts: a year of service first.",
                    packages: [
                        OfferingPackage(packageID: "$annual", productID: "service_year"),
                        OfferingPackage(packageID: "$monthly", productID: "garden_club"),
                    ],
                    paywall: Paywall(
                        layout: "two_column", colors: colors, imageURLs: images, defaultLocale: "de",
                        localizations: [
                            "de": .init(
                                title: "Ein Jahr im Garten", features: ["Ein Jahr Service", "Oder monatlich"],
                                callToAction: "Jetzt wählen")
                        ])
                ),
            ],
            rules: [TargetingRule(ruleID: "german_storefronts", offeringID: "germany", countries: ["DE", "AT"])]
        )
    }
}
