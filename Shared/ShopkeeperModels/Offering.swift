/// One offering of an app, as the developer writes it (`/v1/admin/offerings`): an ordered set of packages, each
/// selling one catalog product, and a paywall document the app renders.
///
/// Designed so that an experiment can later compare offerings as its variants: an offering is addressed by its id
/// alone and holds nothing about who sees it (targeting rules and experiments point at offerings, never the reverse).
package struct Offering: Codable, Hashable, Sendable {
    /// The developer's id, unique within the app: letters, digits, `.`, `_`, `-`; at most 100 characters.
    package var offeringID: String
    package var description: String?
    /// The app's default offering: served when no targeting rule matches. Exactly one per app that has offerings.
    package var isDefault: Bool
    /// In the order the app shows them.
    package var packages: [OfferingPackage]
    package var paywall: Paywall?

    package init(
        offeringID: String, description: String? = nil, isDefault: Bool = false, packages: [OfferingPackage],
        paywall: Paywall? = nil
    ) {
        self.offeringID = offeringID
        self.description = description
        self.isDefault = isDefault
        self.packages = packages
        self.paywall = paywall
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case offeringID = "offering_id"
        case description
        case isDefault = "default"
        case packages, paywall
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        offeringID = try container.decode(String.self, forKey: .offeringID)
        description = try container.decodeUnlessAbsent(String.self, forKey: .description)
        isDefault = try container.decodeUnlessAbsent(Bool.self, forKey: .isDefault) ?? false
        packages = try container.decode([OfferingPackage].self, forKey: .packages)
        paywall = try container.decodeUnlessAbsent(Paywall.self, forKey: .paywall)
    }
}

/// One package of an offering: a catalog product, and per platform the store product that sells it.
package struct OfferingPackage: Codable, Hashable, Sendable {
    /// `$monthly`, `$annual`, `$lifetime`... or the developer's own id; unique within the offering.
    package var packageID: String
    package var productID: String
    /// Per platform, the store product id that sells the product in this package; a platform left out sells it with
    /// the product's own store id. Each must be a store id the catalog maps to this same product.
    package var storeProductIDs: [StorePlatform: String]

    package init(packageID: String, productID: String, storeProductIDs: [StorePlatform: String] = [:]) {
        self.packageID = packageID
        self.productID = productID
        self.storeProductIDs = storeProductIDs
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case packageID = "package_id"
        case productID = "product_id"
        case storeProductIDs = "store_product_ids"
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        packageID = try container.decode(String.self, forKey: .packageID)
        productID = try container.decode(String.self, forKey: .productID)
        storeProductIDs =
            try container.decodeUnlessAbsent([StorePlatform: String].self, forKey: .storeProductIDs) ?? [:]
    }
}

/// The paywall document of an offering: what the app renders around its packages. Texts are localized with the same
/// fallback as product texts (exact locale, then the language, then another region of it, then the default).
package struct Paywall: Codable, Hashable, Sendable {
    /// The name of the layout the app draws (the app's own vocabulary, such as `two_column`).
    package var layout: String
    /// Colour name to `#RRGGBB` or `#RRGGBBAA`.
    package var colors: [String: String]
    /// Image name to an http(s) URL.
    package var imageURLs: [String: String]
    /// Must be a key of ``localizations``.
    package var defaultLocale: String
    package var localizations: [String: PaywallLocalization]

    package init(
        layout: String, colors: [String: String] = [:], imageURLs: [String: String] = [:], defaultLocale: String = "en",
        localizations: [String: PaywallLocalization]
    ) {
        self.layout = layout
        self.colors = colors
        self.imageURLs = imageURLs
        self.defaultLocale = defaultLocale
        self.localizations = localizations
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case layout, colors, localizations
        case imageURLs = "image_urls"
        case defaultLocale = "default_locale"
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        layout = try container.decode(String.self, forKey: .layout)
        colors = try container.decodeUnlessAbsent([String: String].self, forKey: .colors) ?? [:]
        imageURLs = try container.decodeUnlessAbsent([String: String].self, forKey: .imageURLs) ?? [:]
        defaultLocale = try container.decode(String.self, forKey: .defaultLocale)
        localizations = try container.decode([String: PaywallLocalization].self, forKey: .localizations)
    }
}

/// A paywall's texts in one locale.
package struct PaywallLocalization: Codable, Hashable, Sendable {
    package var title: String
    package var subtitle: String?
    /// The feature list, in order.
    package var features: [String]
    package var callToAction: String?

    package init(title: String, subtitle: String? = nil, features: [String] = [], callToAction: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.features = features
        self.callToAction = callToAction
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case title, subtitle, features
        case callToAction = "call_to_action"
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        subtitle = try container.decodeUnlessAbsent(String.self, forKey: .subtitle)
        features = try container.decodeUnlessAbsent([String].self, forKey: .features) ?? []
        callToAction = try container.decodeUnlessAbsent(String.self, forKey: .callToAction)
    }
}
