import Foundation

/// What to offer one customer (`GET /v1/offerings`, schema `OfferingsView`): the offering the app's targeting rules
/// chose, and every offering as this build sees it.
public struct OfferingsView: Codable, Hashable, Sendable {
    /// The offering to show; `nil` when the app has no offerings.
    public var currentOfferingID: String?
    /// The targeting rule that chose it; `nil` when the default offering was served.
    public var ruleID: String?
    /// Every offering of the app.
    public var offerings: [OfferingView]

    enum CodingKeys: String, CodingKey {
        case offerings
        case currentOfferingID = "current_offering_id"
        case ruleID = "rule_id"
    }

    /// The offering to show, if the app has one.
    public var current: OfferingView? { currentOfferingID.flatMap(offering) }

    /// The offering with this id.
    public func offering(_ offeringID: String) -> OfferingView? {
        offerings.first { $0.offeringID == offeringID }
    }
}

/// One offering as this build sees it (schema `OfferingView`).
public struct OfferingView: Codable, Hashable, Sendable, Identifiable {
    /// The developer's offering id.
    public var offeringID: String
    /// The developer's note on it.
    public var description: String?
    /// The packages whose product this build may see, in order.
    public var packages: [PackageView]
    /// The paywall to render, in the locale closest to the caller's.
    public var paywall: PaywallView?

    /// The offering id.
    public var id: String { offeringID }

    enum CodingKeys: String, CodingKey {
        case description, packages, paywall
        case offeringID = "offering_id"
    }

    /// The package with this id (`$monthly`).
    public func package(_ packageID: String) -> PackageView? {
        packages.first { $0.packageID == packageID }
    }
}

/// One package of an offering (schema `PackageView`): its product as `GET /v1/catalog` shows it to this build;
/// `product.storeProductID` is the one the package sells it with on the caller's platform.
public struct PackageView: Codable, Hashable, Sendable, Identifiable {
    /// The developer's package id (`$monthly`, `$annual`).
    public var packageID: String
    /// The product it sells.
    public var product: CatalogItem

    /// The package id.
    public var id: String { packageID }

    enum CodingKeys: String, CodingKey {
        case product
        case packageID = "package_id"
    }
}

/// An offering's paywall document in one locale (schema `PaywallView`): what the app renders.
public struct PaywallView: Codable, Hashable, Sendable {
    /// The layout the app renders (`hero`, `two_column`: the developer's names).
    public var layout: String
    /// Named colours (`background`: `#F1F8E9`).
    public var colors: [String: String]
    /// Named images by URL (`header`).
    public var imageURLs: [String: String]
    /// The locale the texts are in.
    public var locale: String
    /// The title.
    public var title: String
    /// The subtitle.
    public var subtitle: String?
    /// The feature list, in order.
    public var features: [String]
    /// The buy button's text.
    public var callToAction: String?

    enum CodingKeys: String, CodingKey {
        case layout, colors, locale, title, subtitle, features
        case imageURLs = "image_urls"
        case callToAction = "call_to_action"
    }
}
