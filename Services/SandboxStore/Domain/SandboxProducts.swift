import Foundation

/// The App Store products the sandbox sells, with their prices per storefront: what a StoreKit configuration file
/// is to Xcode. Apps ask for them as StoreKit's `Product.products(for:)` would answer (``StorefrontProduct``: the
/// localized `displayPrice`, the subscription period, the introductory offer), and a purchase that names no price
/// is made at its storefront's.
///
/// Kept in `products.json` in the state directory, written whole (atomically) on every change, so a restart keeps
/// them; the purchases themselves are the journal's.
actor SandboxProducts {
    private let file: URL
    private var byID: [String: SandboxProduct]

    /// The catalog kept in `file` (empty when there is none yet).
    init(file: URL) throws {
        self.file = file
        if FileManager.default.fileExists(atPath: file.path) {
            let catalog = try JSONDecoder().decode(SandboxProductCatalog.self, from: Data(contentsOf: file))
            byID = Dictionary(catalog.products.map { ($0.productID, $0) }) { _, last in last }
        } else {
            byID = [:]
        }
    }

    /// Replaces the catalog with `products` and keeps it.
    func replace(_ products: [SandboxProduct]) throws {
        let catalog = SandboxProductCatalog(products: products)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(catalog).write(to: file, options: .atomic)
        byID = Dictionary(products.map { ($0.productID, $0) }) { _, last in last }
    }

    /// Every product kept, by id.
    func all() -> [SandboxProduct] {
        byID.values.sorted { $0.productID < $1.productID }
    }

    /// The products of `ids` that are sold in `storefront`, as StoreKit shows them there (unknown ids, and products
    /// without a price there, are left out, as StoreKit leaves them out).
    func products(ids: [String], storefront: String) -> [StorefrontProduct] {
        ids.compactMap { byID[$0] }.compactMap { StorefrontProduct($0, storefront: storefront) }
    }

    /// A product's price and currency in `storefront`, when the catalog has one.
    func price(of productID: String, storefront: String) -> SandboxPrice? {
        byID[productID]?.prices.first { $0.storefront == storefront }
    }
}

/// `products.json`, and the body of `PUT /sandbox/apple/products`.
struct SandboxProductCatalog: Codable, Sendable {
    var products: [SandboxProduct]
}

/// One App Store product of the sandbox.
struct SandboxProduct: Codable, Sendable, Equatable {
    var productID: String
    /// Apple's type string: `Consumable`, `Non-Consumable`, `Auto-Renewable Subscription`, `Non-Renewing Subscription`.
    var type: String
    var displayName: String
    var description: String?
    var prices: [SandboxPrice]
    /// ISO 8601 (`P1M`), for subscriptions.
    var subscriptionPeriod: String?
    var introductoryOffer: SandboxIntroductoryOffer?
    /// Where the product stands in App Store Connect's review, in Apple's words (`APPROVED` when omitted):
    /// what the sandbox's App Store Connect API answers (``AppStoreConnectAPIController``).
    var reviewState: String? = nil
    /// App Store Connect's reference name (the display name when omitted).
    var referenceName: String? = nil
    /// The subscription group's reference name, for auto-renewable subscriptions (`Default` when omitted).
    var subscriptionGroup: String? = nil

    enum CodingKeys: String, CodingKey {
        case type, description, prices
        case productID = "product_id"
        case displayName = "display_name"
        case subscriptionPeriod = "subscription_period"
        case introductoryOffer = "introductory_offer"
        case reviewState = "review_state"
        case referenceName = "reference_name"
        case subscriptionGroup = "subscription_group"
    }
}

/// A product's price in one storefront.
struct SandboxPrice: Codable, Sendable, Equatable {
    /// ISO 3166-1 alpha-3, as Apple names storefronts (`USA`, `DEU`).
    var storefront: String
    /// ISO 4217.
    var currency: String
    /// Milliunits of `currency`, as Apple's signed transactions carry prices (1990 is 1.99).
    var price: Int64
}

/// A subscription's introductory offer.
struct SandboxIntroductoryOffer: Codable, Sendable, Equatable {
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO` or `PAY_UP_FRONT`.
    var type: String
    /// ISO 8601 (`P1W`).
    var period: String
    /// Milliunits; 0 for a free trial.
    var price: Int64?
}

/// A product as StoreKit shows it in one storefront (`Product.displayName`, `displayPrice`, `price`, ...).
struct StorefrontProduct: Codable, Sendable, Equatable {
    var productID: String
    var type: String
    var displayName: String
    var description: String?
    var storefront: String
    var currency: String
    /// Milliunits.
    var price: Int64
    /// The price as the storefront's locale writes it (`$1.99`, `2,29 €`).
    var displayPrice: String
    var subscriptionPeriod: String?
    var introductoryOffer: SandboxIntroductoryOffer?

    init?(_ product: SandboxProduct, storefront: String) {
        guard let price = product.prices.first(where: { $0.storefront == storefront }) else { return nil }
        productID = product.productID
        type = product.type
        displayName = product.displayName
        description = product.description
        self.storefront = storefront
        currency = price.currency
        self.price = price.price
        displayPrice = Self.displayPrice(price.price, currency: price.currency, storefront: storefront)
        subscriptionPeriod = product.subscriptionPeriod
        introductoryOffer = product.introductoryOffer
    }

    /// `milliunits` of `currency` written as the storefront's main locale writes money.
    static func displayPrice(_ milliunits: Int64, currency: String, storefront: String) -> String {
        let amount = Decimal(milliunits) / 1000
        return amount.formatted(.currency(code: currency).locale(Locale(identifier: locales[storefront] ?? "en_US")))
    }

    /// The main locale of the storefronts the sandbox knows (the others write money as the United States do).
    static let locales = [
        "USA": "en_US", "GBR": "en_GB", "CAN": "en_CA", "AUS": "en_AU", "DEU": "de_DE", "AUT": "de_AT",
        "CHE": "de_CH", "FRA": "fr_FR", "ITA": "it_IT", "ESP": "es_ES", "NLD": "nl_NL", "JPN": "ja_JP",
    ]

    enum CodingKeys: String, CodingKey {
        case type, description, storefront, currency, price
        case productID = "product_id"
        case displayName = "display_name"
        case displayPrice = "display_price"
        case subscriptionPeriod = "subscription_period"
        case introductoryOffer = "introductory_offer"
    }
}
