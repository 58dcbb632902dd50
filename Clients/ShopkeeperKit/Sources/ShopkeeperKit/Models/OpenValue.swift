/// A string value the server defines (a product type, a state, a store), typed where the package knows it and kept
/// as sent where it does not: a value the server adds next year decodes instead of failing the whole answer.
public protocol OpenValue: RawRepresentable, Codable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
where RawValue == String {
    /// Wraps any string the server sends.
    init(rawValue: String)
}

extension OpenValue {
    /// A value written as a literal, such as `"consumable"`.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    /// The value as the server spells it.
    public var description: String { rawValue }
    /// Decodes any string.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }
    /// Encodes the value as the server spells it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A store an app is sold through (`StorePlatform`).
public struct StorePlatform: OpenValue {
    /// The value as the server spells it.
    public let rawValue: String
    /// Wraps any string the server sends.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Apple's App Store.
    public static let appStore: Self = "app_store"
    /// Google Play.
    public static let playStore: Self = "play_store"
}

/// What kind of thing a product is (`ProductType`).
public struct ProductType: OpenValue {
    /// The value as the server spells it.
    public let rawValue: String
    /// Wraps any string the server sends.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Used up and bought again; counted on the server.
    public static let consumable: Self = "consumable"
    /// Bought once, owned for good.
    public static let nonConsumable: Self = "non_consumable"
    /// Renewed by the store until cancelled.
    public static let autoRenewable: Self = "auto_renewable"
    /// A fixed period; purchases stack end to end.
    public static let nonRenewing: Self = "non_renewing"
}

/// The kind of build asking for the catalog (`BuildKind`).
public struct BuildKind: OpenValue {
    /// The value as the server spells it.
    public let rawValue: String
    /// Wraps any string the server sends.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A developer's or tester's build (Xcode, TestFlight, the sandbox store): also sees products under review.
    public static let development: Self = "development"
    /// A build from the store: sees only approved products cleared for sale.
    public static let distribution: Self = "distribution"
}

/// How the calling build may obtain a listed product (`Availability`).
public struct Availability: OpenValue {
    /// The value as the server spells it.
    public let rawValue: String
    /// Wraps any string the server sends.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Bought through the store with its `storeProductID`.
    public static let purchasable: Self = "purchasable"
    /// Claimed from Shopkeeper without a store.
    public static let free: Self = "free"
    /// Already part of the app's variant: shown as owned, never sent to a store.
    public static let included: Self = "included"
    /// Shown, but the app must update to buy it.
    public static let requiresUpdate: Self = "requires_update"
}

/// `production` (real money) or `sandbox` (test purchases).
public struct StoreEnvironment: OpenValue {
    /// The value as the server spells it.
    public let rawValue: String
    /// Wraps any string the server sends.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Real money.
    public static let production: Self = "production"
    /// Test purchases (Apple's sandbox, Xcode, Google's license testers); never revenue.
    public static let sandbox: Self = "sandbox"
}

/// Which Play Developer API a purchase token belongs to (`PlayPurchaseKind`).
public struct PlayPurchaseKind: OpenValue {
    /// The value as the server spells it.
    public let rawValue: String
    /// Wraps any string the server sends.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A one-time product.
    public static let product: Self = "product"
    /// A subscription.
    public static let subscription: Self = "subscription"
}

/// A value of a string enumeration the package does not type further (states, reasons, outcomes): the server's
/// spelling, compared with string literals (`state == "active"`).
public struct ServerValue: OpenValue {
    /// The value as the server spells it.
    public let rawValue: String
    /// Wraps any string the server sends.
    public init(rawValue: String) { self.rawValue = rawValue }
}
