import Foundation

/// The Play products the sandbox sells, per package: one-time products and subscriptions with their base plans,
/// offers, states and regional prices, as Play Console holds them. The sandbox's Android Publisher monetization
/// endpoints (``PlayMonetizationAPIController``) answer from it; `PUT /sandbox/google/products` and
/// `PATCH /sandbox/google/products/{productId}` change it (``GoogleProductsController``).
///
/// Kept in `play-products.json` in the state directory, written whole (atomically) on every change, so a restart keeps
/// it; purchases do not depend on it (a purchase may name any product id, as before).
actor PlayCatalog {
    private let directory: StateDirectory
    private var packages: [String: [PlayProduct]]

    /// The catalog kept in `directory` (empty when there is none yet).
    init(directory: StateDirectory) throws {
        self.directory = directory
        let file = directory.snapshotURL(Self.name)
        if FileManager.default.fileExists(atPath: file.path) {
            packages = try JSONDecoder().decode(PlayCatalogFile.self, from: Data(contentsOf: file)).packages
        } else {
            packages = [:]
        }
    }

    private static let name = "play-products"

    /// Replaces what `packageName` sells with `products` (a product left out is deleted at the store) and keeps it.
    func replace(packageName: String, products: [PlayProduct]) throws {
        var changed = packages
        changed[packageName] = products.sorted { $0.productID < $1.productID }
        try save(changed)
    }

    /// What `packageName` sells, by product id.
    func products(packageName: String) -> [PlayProduct] {
        packages[packageName] ?? []
    }

    /// Changes one product's state or prices (`nil`: left as they are): a one-time product's purchase option, or a
    /// subscription's base plan `basePlanID` (its first when `nil`). Throws ``PlayCatalogError`` when there is no
    /// such product or base plan.
    func change(packageName: String, productID: String, basePlanID: String?, state: String?, prices: [PlayPrice]?)
        throws -> PlayProduct
    {
        var products = packages[packageName] ?? []
        guard let index = products.firstIndex(where: { $0.productID == productID }) else {
            throw PlayCatalogError.noProduct(productID)
        }
        var product = products[index]
        if product.type == PlayProduct.subscription {
            var plans = product.basePlans ?? []
            guard let plan = plans.firstIndex(where: { basePlanID == nil || $0.basePlanID == basePlanID }) else {
                throw PlayCatalogError.noBasePlan(basePlanID ?? "")
            }
            if let state { plans[plan].state = state }
            if let prices { plans[plan].prices = prices }
            product.basePlans = plans
        } else {
            guard basePlanID == nil else { throw PlayCatalogError.noBasePlan(basePlanID ?? "") }
            if let state { product.state = state }
            if let prices { product.prices = prices }
        }
        products[index] = product
        var changed = packages
        changed[packageName] = products
        try save(changed)
        return product
    }

    private func save(_ changed: [String: [PlayProduct]]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try directory.write(
            try encoder.encode(PlayCatalogFile(packages: changed)), to: directory.snapshotURL(Self.name))
        packages = changed
    }
}

/// A product or base plan a control named that the catalog does not have.
enum PlayCatalogError: Error, Equatable {
    case noProduct(String)
    case noBasePlan(String)
}

/// `play-products.json`.
private struct PlayCatalogFile: Codable {
    var packages: [String: [PlayProduct]]
}

/// One Play product of the sandbox, in the controls' words (the monetization endpoints answer it in Google's).
struct PlayProduct: Codable, Sendable, Equatable {
    static let oneTime = "product"
    static let subscription = "subscription"

    var productID: String
    /// `product` (one-time) or `subscription`, as `POST /sandbox/google/purchases` names them.
    var type: String
    /// The `en-US` listing's title (the product id when omitted).
    var title: String?
    /// One-time products: the state of their purchase option (`ACTIVE` when omitted).
    var state: String?
    /// One-time products: whether one checkout may buy several (Play's multi-quantity).
    var multiQuantity: Bool?
    /// One-time products: the price per region.
    var prices: [PlayPrice]?
    /// Subscriptions: their base plans, the first one legacy-compatible.
    var basePlans: [PlayBasePlan]?

    enum CodingKeys: String, CodingKey {
        case type, title, state, prices
        case productID = "product_id"
        case multiQuantity = "multi_quantity"
        case basePlans = "base_plans"
    }
}

/// A subscription's base plan.
struct PlayBasePlan: Codable, Sendable, Equatable {
    var basePlanID: String
    /// ISO 8601 (`P1M`).
    var period: String
    /// A prepaid plan (no renewal) instead of an auto-renewing one.
    var prepaid: Bool?
    /// `DRAFT`, `ACTIVE` (when omitted) or `INACTIVE`.
    var state: String?
    var prices: [PlayPrice]
    var offers: [PlayOffer]?

    enum CodingKeys: String, CodingKey {
        case period, prepaid, state, prices, offers
        case basePlanID = "base_plan_id"
    }
}

/// An offer on a base plan.
struct PlayOffer: Codable, Sendable, Equatable {
    var offerID: String
    /// `DRAFT`, `ACTIVE` (when omitted) or `INACTIVE`.
    var state: String?
    /// ISO 8601: a free trial of this length (its only phase); `nil`, no phase is listed.
    var trial: String?

    enum CodingKeys: String, CodingKey {
        case state, trial
        case offerID = "offer_id"
    }
}

/// A price in one region.
struct PlayPrice: Codable, Sendable, Equatable {
    /// ISO 3166-1 alpha-2 (`US`), as Play names regions.
    var region: String
    /// ISO 4217.
    var currency: String
    /// A plain decimal (`0.99`), at most nine fractional digits (Google's `Money` keeps billionths).
    var price: String
}
