/// The offerings one build of an app shows one customer (`GET /v1/offerings`).
package struct OfferingsView: Codable, Hashable, Sendable {
    /// The offering to show: the first matching rule's, else the default; `nil` when the app has no offerings.
    package var currentOfferingID: String?
    /// The rule that chose it; `nil` for the default.
    package var ruleID: String?
    /// Every offering of the app (so the app can also show one by id), each with the packages this build may see.
    package var offerings: [OfferingView]
    /// The running experiment whose variant chose the current offering; absent when none did.
    package var experiment: ExperimentPick?

    package init(
        currentOfferingID: String?, ruleID: String?, offerings: [OfferingView], experiment: ExperimentPick? = nil
    ) {
        self.currentOfferingID = currentOfferingID
        self.ruleID = ruleID
        self.offerings = offerings
        self.experiment = experiment
    }

    package enum CodingKeys: String, CodingKey {
        case offerings, experiment
        case currentOfferingID = "current_offering_id"
        case ruleID = "rule_id"
    }
}

/// One offering as a build sees it.
package struct OfferingView: Codable, Hashable, Sendable {
    package var offeringID: String
    package var description: String?
    /// The packages whose product the build may see, in order.
    package var packages: [PackageView]
    package var paywall: PaywallView?

    package init(offeringID: String, description: String?, packages: [PackageView], paywall: PaywallView?) {
        self.offeringID = offeringID
        self.description = description
        self.packages = packages
        self.paywall = paywall
    }

    package enum CodingKeys: String, CodingKey {
        case description, packages, paywall
        case offeringID = "offering_id"
    }
}

/// One package: its id and its product as the build sees it in the catalog (`store_product_id` is the one this
/// package sells it with on the caller's platform).
package struct PackageView: Codable, Hashable, Sendable {
    package var packageID: String
    package var product: CatalogItem

    package init(packageID: String, product: CatalogItem) {
        self.packageID = packageID
        self.product = product
    }

    package enum CodingKeys: String, CodingKey {
        case product
        case packageID = "package_id"
    }
}

/// A paywall in the locale closest to the caller's.
package struct PaywallView: Codable, Hashable, Sendable {
    package var layout: String
    package var colors: [String: String]
    package var imageURLs: [String: String]
    /// The locale the texts are in.
    package var locale: String
    package var title: String
    package var subtitle: String?
    package var features: [String]
    package var callToAction: String?

    package init(
        layout: String, colors: [String: String], imageURLs: [String: String], locale: String, title: String,
        subtitle: String?, features: [String], callToAction: String?
    ) {
        self.layout = layout
        self.colors = colors
        self.imageURLs = imageURLs
        self.locale = locale
        self.title = title
        self.subtitle = subtitle
        self.features = features
        self.callToAction = callToAction
    }

    package enum CodingKeys: String, CodingKey {
        case layout, colors, locale, title, subtitle, features
        case imageURLs = "image_urls"
        case callToAction = "call_to_action"
    }
}
