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

    /// The demo shop's running experiment: on version 3.0 and later in German storefronts, does the garden club first
    /// (`standard`) sell better than a year of service first (`germany`, what the rule serves them otherwise)? Its
    /// audience leaves every build below 3.0 out, so the clients' tests (on 2.0) keep seeing the rules' offerings;
    /// `shopkeeper seed sales` sends it customers (``DemoExperimentShoppers``).
    static var experiment: Experiment {
        Experiment(
            experimentID: "club_first_de",
            name: "German storefronts on 3.0: the garden club first, or a year of service?",
            audience: ExperimentAudience(
                conditions: AudienceConditions(
                    rule: TargetingRule(
                        ruleID: "", offeringID: "", countries: ["DE", "AT"], minAppVersion: AppVersion("3.0")))),
            variants: [
                ExperimentVariant(key: "a", offeringID: "germany", weight: 1),
                ExperimentVariant(key: "b", offeringID: "standard", weight: 1),
            ])
    }
}
