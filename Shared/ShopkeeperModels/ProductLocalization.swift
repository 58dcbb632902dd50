/// A product's texts and pictures in one locale.
package struct ProductLocalization: Codable, Hashable, Sendable {
    package var name: String
    package var description: String?
    /// A web page describing the product in detail.
    package var descriptionURL: String?
    package var screenshotURLs: [String]
    /// A price to show before the store's own price has loaded, such as "$0.99"; display only.
    package var priceHint: String?

    package init(
        name: String,
        description: String? = nil,
        descriptionURL: String? = nil,
        screenshotURLs: [String] = [],
        priceHint: String? = nil
    ) {
        self.name = name
        self.description = description
        self.descriptionURL = descriptionURL
        self.screenshotURLs = screenshotURLs
        self.priceHint = priceHint
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case name
        case description
        case descriptionURL = "description_url"
        case screenshotURLs = "screenshot_urls"
        case priceHint = "price_hint"
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        descriptionURL = try container.decodeIfPresent(String.self, forKey: .descriptionURL)
        screenshotURLs = try container.decodeIfPresent([String].self, forKey: .screenshotURLs) ?? []
        priceHint = try container.decodeIfPresent(String.self, forKey: .priceHint)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encodeIfPresent(descriptionURL, forKey: .descriptionURL)
        try container.encode(screenshotURLs, forKey: .screenshotURLs)
        try container.encodeIfPresent(priceHint, forKey: .priceHint)
    }
}
