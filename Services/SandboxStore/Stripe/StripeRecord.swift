import Foundation
import ShopkeeperCore

/// Any Stripe object the sandbox keeps, by id, in one journaled map (``SandboxSnapshot/stripeObjects``).
enum StripeRecord: Codable, Sendable, Equatable {
    case price(StripePriceRecord)
    case customer(StripeCustomerRecord)
    case session(StripeSessionRecord)
    case paymentIntent(StripePaymentIntentRecord)
    case charge(StripeChargeRecord)
    case subscription(StripeSubscriptionRecord)
    case invoice(StripeInvoiceRecord)
    case refund(StripeRefundRecord)
    case dispute(StripeDisputeRecord)
    case portal(StripePortalRecord)
}

/// A record kind kept in ``StripeRecord``.
protocol StripeStored: Sendable {
    var id: String { get }
    var record: StripeRecord { get }
    init?(_ record: StripeRecord)
    /// Stripe's name of the object, for "No such ...: 'id'".
    static var noun: String { get }
}

extension StripePriceRecord: StripeStored {
    var record: StripeRecord { .price(self) }
    init?(_ record: StripeRecord) {
        guard case .price(let value) = record else { return nil }
        self = value
    }
    static let noun = "price"
}

extension StripeCustomerRecord: StripeStored {
    var record: StripeRecord { .customer(self) }
    init?(_ record: StripeRecord) {
        guard case .customer(let value) = record else { return nil }
        self = value
    }
    static let noun = "customer"
}

extension StripeSessionRecord: StripeStored {
    var record: StripeRecord { .session(self) }
    init?(_ record: StripeRecord) {
        guard case .session(let value) = record else { return nil }
        self = value
    }
    static let noun = "checkout.session"
}

extension StripePaymentIntentRecord: StripeStored {
    var record: StripeRecord { .paymentIntent(self) }
    init?(_ record: StripeRecord) {
        guard case .paymentIntent(let value) = record else { return nil }
        self = value
    }
    static let noun = "payment_intent"
}

extension StripeChargeRecord: StripeStored {
    var record: StripeRecord { .charge(self) }
    init?(_ record: StripeRecord) {
        guard case .charge(let value) = record else { return nil }
        self = value
    }
    static let noun = "charge"
}

extension StripeSubscriptionRecord: StripeStored {
    var record: StripeRecord { .subscription(self) }
    init?(_ record: StripeRecord) {
        guard case .subscription(let value) = record else { return nil }
        self = value
    }
    static let noun = "subscription"
}

extension StripeInvoiceRecord: StripeStored {
    var record: StripeRecord { .invoice(self) }
    init?(_ record: StripeRecord) {
        guard case .invoice(let value) = record else { return nil }
        self = value
    }
    static let noun = "invoice"
}

extension StripeRefundRecord: StripeStored {
    var record: StripeRecord { .refund(self) }
    init?(_ record: StripeRecord) {
        guard case .refund(let value) = record else { return nil }
        self = value
    }
    static let noun = "refund"
}

extension StripeDisputeRecord: StripeStored {
    var record: StripeRecord { .dispute(self) }
    init?(_ record: StripeRecord) {
        guard case .dispute(let value) = record else { return nil }
        self = value
    }
    static let noun = "dispute"
}

extension StripePortalRecord: StripeStored {
    var record: StripeRecord { .portal(self) }
    init?(_ record: StripeRecord) {
        guard case .portal(let value) = record else { return nil }
        self = value
    }
    static let noun = "billing_portal.session"
}

/// Stripe-shaped ids: a prefix and random base-62 characters (`cus_` + 14, `cs_test_` + 58, ...).
enum StripeIdentifiers {
    static func make(_ prefix: String, length: Int = 24) -> String {
        prefix + RandomToken.base62(length: length)
    }
}

extension StripeRecord {
    /// The object as Stripe's API renders it.
    var json: StripeValue {
        switch self {
        case .price(let value): value.json
        case .customer(let value): value.json
        case .session(let value): value.json(expandLineItems: false)
        case .paymentIntent(let value): value.json
        case .charge(let value): value.json
        case .subscription(let value): value.json
        case .invoice(let value): value.json
        case .refund(let value): value.json
        case .dispute(let value): value.json
        case .portal(let value): value.json
        }
    }
}
