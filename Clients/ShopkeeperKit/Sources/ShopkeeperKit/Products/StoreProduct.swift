import Foundation

/// A product as the device's store shows it in the customer's storefront: StoreKit's `Product` on Apple platforms,
/// the sandbox store's `GET /sandbox/apple/products` elsewhere. Show ``displayPrice``: it is the price the store
/// charges, written as the customer's storefront writes money (`$2.99`, `2,99 €`).
public struct StoreProduct: Hashable, Sendable, Identifiable {
    /// The product's id at the store.
    public var id: String
    /// The name the store shows.
    public var displayName: String
    /// The description the store shows.
    public var description: String
    /// The price, localized for the storefront (`Product.displayPrice`).
    public var displayPrice: String
    /// The price in ``currencyCode``.
    public var price: Decimal
    /// ISO 4217 (`USD`, `EUR`), when the store says.
    public var currencyCode: String?
    /// The storefront (ISO 3166-1 alpha-3, `USA`, `DEU`), when the store says.
    public var storefront: String?
    /// An auto-renewable subscription's period (ISO 8601: `P1M`, `P1Y`).
    public var subscriptionPeriod: String?
    /// An auto-renewable subscription's introductory offer (a free trial, a lower first price), whoever may have it:
    /// ``ShopProduct/introductoryOffer`` is the one this customer may have.
    public var introductoryOffer: IntroductoryOffer?

    /// A product.
    public init(
        id: String, displayName: String, description: String = "", displayPrice: String, price: Decimal,
        currencyCode: String? = nil, storefront: String? = nil, subscriptionPeriod: String? = nil,
        introductoryOffer: IntroductoryOffer? = nil
    ) {
        self.id = id
        self.displayName = displayName
        self.description = description
        self.displayPrice = displayPrice
        self.price = price
        self.currencyCode = currencyCode
        self.storefront = storefront
        self.subscriptionPeriod = subscriptionPeriod
        self.introductoryOffer = introductoryOffer
    }
}

/// A subscription's introductory offer (StoreKit's `Product.SubscriptionOffer` of type introductory).
public struct IntroductoryOffer: Hashable, Sendable {
    /// How the customer pays during the offer.
    public var paymentMode: PaymentMode
    /// One period of the offer (ISO 8601: `P1W`).
    public var period: String
    /// How many periods the offer lasts (pay as you go: that many periods at ``price``).
    public var periodCount: Int
    /// The price per period (0 for a free trial).
    public var price: Decimal
    /// The price as the storefront writes it, where the store says (StoreKit does; the sandbox store does not).
    public var displayPrice: String?

    /// How an introductory offer is paid.
    public enum PaymentMode: String, Hashable, Sendable {
        /// Nothing to pay during the offer.
        case freeTrial = "free_trial"
        /// A lower price each period of the offer.
        case payAsYouGo = "pay_as_you_go"
        /// One lower price for the whole offer, up front.
        case payUpFront = "pay_up_front"
    }

    /// An offer.
    public init(
        paymentMode: PaymentMode, period: String, periodCount: Int = 1, price: Decimal, displayPrice: String? = nil
    ) {
        self.paymentMode = paymentMode
        self.period = period
        self.periodCount = periodCount
        self.price = price
        self.displayPrice = displayPrice
    }
}

extension IntroductoryOffer.PaymentMode {
    /// The mode for the offer type the App Store Server API (and the sandbox store) spells `FREE_TRIAL`,
    /// `PAY_AS_YOU_GO` or `PAY_UP_FRONT`.
    public init?(appStoreServerName name: String) {
        switch name.uppercased() {
        case "FREE_TRIAL": self = .freeTrial
        case "PAY_AS_YOU_GO": self = .payAsYouGo
        case "PAY_UP_FRONT": self = .payUpFront
        default: return nil
        }
    }
}
