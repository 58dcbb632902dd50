import Foundation

/// The offerings with the store's prices: ``OfferingsView`` with each package's product joined with the device
/// store's product, as ``Shopkeeper/products()`` joins the catalog. Render ``current``'s ``ShopOffering/paywall``
/// with its packages' ``ShopProduct/displayPrice``.
public struct ShopOfferings: Hashable, Sendable {
    /// The offering to show; `nil` when the app has no offerings.
    public var currentOfferingID: String?
    /// The targeting rule that chose it; `nil` when the default offering was served.
    public var ruleID: String?
    /// Every offering of the app, as the server lists them.
    public var offerings: [ShopOffering]

    /// The offerings.
    public init(currentOfferingID: String?, ruleID: String?, offerings: [ShopOffering]) {
        self.currentOfferingID = currentOfferingID
        self.ruleID = ruleID
        self.offerings = offerings
    }

    /// The offering to show, if the app has one.
    public var current: ShopOffering? { currentOfferingID.flatMap(offering) }

    /// The offering with this id.
    public func offering(_ offeringID: String) -> ShopOffering? {
        offerings.first { $0.offeringID == offeringID }
    }

    /// Every catalog product the offerings' packages sell, each once, in the order they first appear: what to ask the
    /// store (and eligibility) about.
    public static func products(of view: OfferingsView) -> [CatalogItem] {
        var seen: Set<String> = []
        return view.offerings.flatMap(\.packages).map(\.product).filter { seen.insert($0.productID).inserted }
    }

    /// The offerings with each package's product joined with its store product (matched by the package's store
    /// product id) and the eligibility answered for its catalog product id (``ShopProduct/join(catalog:storeProducts:eligibility:)``).
    /// Pure: ``Shopkeeper/shopOfferings(country:)`` gathers the inputs.
    public static func join(
        _ view: OfferingsView, storeProducts: [StoreProduct], eligibility: [String: Bool] = [:],
        storeLoaded: Bool = true
    ) -> ShopOfferings {
        let offerings = view.offerings.map { offering in
            let products = ShopProduct.join(
                catalog: offering.packages.map(\.product), storeProducts: storeProducts, eligibility: eligibility,
                storeLoaded: storeLoaded)
            return ShopOffering(
                offeringID: offering.offeringID, description: offering.description,
                packages: zip(offering.packages, products).map { ShopPackage(packageID: $0.packageID, product: $1) },
                paywall: offering.paywall)
        }
        return ShopOfferings(currentOfferingID: view.currentOfferingID, ruleID: view.ruleID, offerings: offerings)
    }
}

/// One offering with the store's prices.
public struct ShopOffering: Hashable, Sendable, Identifiable {
    /// The developer's offering id.
    public var offeringID: String
    /// The developer's note on it.
    public var description: String?
    /// The packages this build may buy, in order.
    public var packages: [ShopPackage]
    /// The paywall to render, in the locale closest to the caller's.
    public var paywall: PaywallView?

    /// The offering id.
    public var id: String { offeringID }

    /// An offering.
    public init(offeringID: String, description: String?, packages: [ShopPackage], paywall: PaywallView?) {
        self.offeringID = offeringID
        self.description = description
        self.packages = packages
        self.paywall = paywall
    }

    /// The package with this id (`$monthly`).
    public func package(_ packageID: String) -> ShopPackage? {
        packages.first { $0.packageID == packageID }
    }
}

/// One package of an offering with the store's product: buy ``product`` (its `productID`) as any catalog product.
public struct ShopPackage: Hashable, Sendable, Identifiable {
    /// The developer's package id (`$monthly`, `$annual`).
    public var packageID: String
    /// The product it sells, with the store's price.
    public var product: ShopProduct

    /// The package id.
    public var id: String { packageID }

    /// A package.
    public init(packageID: String, product: ShopProduct) {
        self.packageID = packageID
        self.product = product
    }
}
