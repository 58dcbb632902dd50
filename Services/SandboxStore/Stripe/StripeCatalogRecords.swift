import Foundation

/// A price the sandbox sells (`PUT /sandbox/stripe/prices`), with its id chosen by the caller.
struct StripePriceRecord: Codable, Sendable, Equatable {
    var id: String
    var product: String
    var productName: String
    var active: Bool
    var currency: String
    var unitAmount: Int64
    /// `day`, `week`, `month` or `year`; `nil`: a one-time price.
    var interval: String?
    var intervalCount: Int?
    var lookupKey: String?
    /// Days of free trial a subscription to this price starts with (Checkout's `subscription_data` default).
    var trialPeriodDays: Int?
    var created: Int64

    var isRecurring: Bool { interval != nil }

    /// The `price` object.
    var json: StripeValue {
        [
            "id": .string(id), "object": "price", "active": .bool(active), "billing_scheme": "per_unit",
            "created": .int(created), "currency": .string(currency), "custom_unit_amount": nil, "livemode": false,
            "lookup_key": .text(lookupKey), "metadata": [:], "nickname": nil, "product": .string(product),
            "recurring": recurringJSON,
            "tax_behavior": "unspecified", "tiers_mode": nil, "transform_quantity": nil,
            "type": isRecurring ? "recurring" : "one_time", "unit_amount": .int(unitAmount),
            "unit_amount_decimal": .string(String(unitAmount)),
        ]
    }

    /// `recurring`, or `null` for a one-time price.
    var recurringJSON: StripeValue {
        guard let interval else { return nil }
        return [
            "interval": .string(interval), "interval_count": .int(Int64(intervalCount ?? 1)), "meter": nil,
            "usage_type": "licensed", "trial_period_days": .number(trialPeriodDays.map(Int64.init)),
        ]
    }

    /// The `product` object this price belongs to (one product per price in the sandbox's catalog, or shared).
    var productJSON: StripeValue {
        [
            "id": .string(product), "object": "product", "active": .bool(active), "created": .int(created),
            "default_price": .string(id), "description": nil, "images": [], "livemode": false,
            "marketing_features": [], "metadata": [:], "name": .string(productName), "shippable": nil,
            "statement_descriptor": nil, "tax_code": nil, "type": "service", "unit_label": nil,
            "updated": .int(created), "url": nil,
        ]
    }

    /// The length of one period from `start` (UNIX seconds), divided by `timeScale`; at least a second.
    func periodEnd(from start: Int64, timeScale: Double) -> Int64 {
        let count = intervalCount ?? 1
        let component: Calendar.Component =
            switch interval {
            case "day": .day
            case "week": .weekOfYear
            case "year": .year
            default: .month
            }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let from = Date(timeIntervalSince1970: TimeInterval(start))
        let to = calendar.date(byAdding: component, value: count, to: from) ?? from.addingTimeInterval(2_592_000)
        return start + max(1, Int64((to.timeIntervalSince(from) / timeScale).rounded()))
    }
}

/// A customer (`cus_...`) and the card they pay with.
struct StripeCustomerRecord: Codable, Sendable, Equatable {
    var id: String
    var email: String?
    var name: String?
    var description: String?
    var metadata: [String: String]
    var created: Int64
    /// The payment method (`pm_...`) charged for subscriptions; `nil` until a checkout attaches a card.
    var paymentMethod: String?
    var card: StripeTestCard?

    var json: StripeValue {
        [
            "id": .string(id), "object": "customer", "address": nil, "balance": 0, "created": .int(created),
            "currency": nil, "default_source": nil, "delinquent": false, "description": .text(description),
            "email": .text(email), "invoice_prefix": .string(String(id.suffix(8)).uppercased()),
            "invoice_settings": [
                "custom_fields": nil, "default_payment_method": .text(paymentMethod), "footer": nil,
                "rendering_options": nil,
            ],
            "livemode": false, "metadata": .map(metadata), "name": .text(name), "next_invoice_sequence": 1,
            "phone": nil, "preferred_locales": [], "shipping": nil, "tax_exempt": "none", "test_clock": nil,
        ]
    }
}

/// A Stripe test card and what it does (Stripe's "Testing" page), by number.
struct StripeTestCard: Codable, Sendable, Equatable {
    enum Behavior: String, Codable, Sendable {
        /// Every charge succeeds.
        case succeeds
        /// Every charge is declined with `decline_code`.
        case declines
        /// Attaching (checkout) succeeds; later charges (renewals) are declined: `4000000000000341`.
        case attachThenDecline
    }

    var number: String
    var brand: String
    var behavior: Behavior
    /// For declines: Stripe's `decline_code` (`generic_decline`, `insufficient_funds`, ...).
    var declineCode: String?

    var last4: String { String(number.suffix(4)) }

    /// The cards the sandbox knows; any other number is `incorrect_number`.
    static func named(_ text: String) -> StripeTestCard? {
        let number = text.filter(\.isNumber)
        switch number {
        case "4242424242424242": return StripeTestCard(number: number, brand: "visa", behavior: .succeeds)
        case "5555555555554444": return StripeTestCard(number: number, brand: "mastercard", behavior: .succeeds)
        case "4000000000000002":
            return StripeTestCard(number: number, brand: "visa", behavior: .declines, declineCode: "generic_decline")
        case "4000000000009995":
            return StripeTestCard(
                number: number, brand: "visa", behavior: .declines, declineCode: "insufficient_funds")
        case "4000000000000341":
            return StripeTestCard(
                number: number, brand: "visa", behavior: .attachThenDecline, declineCode: "generic_decline")
        default: return nil
        }
    }

    /// Whether a charge made at checkout (`atCheckout`) or later succeeds.
    func charges(atCheckout: Bool) -> Bool {
        switch behavior {
        case .succeeds: true
        case .declines: false
        case .attachThenDecline: atCheckout
        }
    }

    /// The message Stripe gives for the decline.
    var declineMessage: String {
        declineCode == "insufficient_funds" ? "Your card has insufficient funds." : "Your card was declined."
    }

    /// `payment_method_details` of a charge (and `card` of a payment method).
    var cardJSON: StripeValue {
        [
            "brand": .string(brand), "country": "US", "exp_month": 12, "exp_year": 2034, "funding": "credit",
            "last4": .string(last4), "network": .string(brand), "three_d_secure": nil, "wallet": nil,
        ]
    }
}
