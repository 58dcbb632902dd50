import Foundation

// The Stripe API objects Shopkeeper reads, with only the fields it uses (Stripe's names, API version
// `StripeAPIVersion.current`); every other field is ignored, so new fields never break decoding. Timestamps are
// Unix seconds, as Stripe sends them.

/// A field Stripe sends as an id, or as the object when it was expanded (`expand[]`): either way, its id.
package struct StripeID: Codable, Sendable, Equatable, Hashable {
    package var id: String

    package init(_ id: String) {
        self.id = id
    }

    private struct Expanded: Decodable {
        var id: String
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let id = try? container.decode(String.self) {
            self.id = id
        } else {
            self.id = try container.decode(Expanded.self).id
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(id)
    }
}

/// A page of a list (`{"object": "list", "data": [...], "has_more": ...}`).
package struct StripeList<Item: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    package var data: [Item]
    package var hasMore: Bool?

    enum CodingKeys: String, CodingKey {
        case data
        case hasMore = "has_more"
    }
}

/// An `event`: what happened (`type`), to which object (`data.object`, as it was when the event was made).
package struct StripeEvent: Codable, Sendable, Equatable {
    package var id: String
    package var type: String
    package var created: Int64
    package var livemode: Bool
    package var apiVersion: String?
    package var data: EventData

    package struct EventData: Codable, Sendable, Equatable {
        package var object: EventObject
    }

    /// The object an event is about: its id and kind only; the rest is read back from the API.
    package struct EventObject: Codable, Sendable, Equatable {
        package var id: String?
        package var object: String
    }

    enum CodingKeys: String, CodingKey {
        case id, type, created, livemode, data
        case apiVersion = "api_version"
    }
}

/// A `checkout.session`.
package struct StripeCheckoutSession: Codable, Sendable, Equatable {
    package var id: String
    /// `payment`, `subscription` or `setup`.
    package var mode: String
    /// `open`, `complete` or `expired`.
    package var status: String?
    /// `paid`, `unpaid` or `no_payment_required`.
    package var paymentStatus: String
    package var url: String?
    package var clientReferenceID: String?
    package var metadata: [String: String]?
    package var paymentIntent: StripeID?
    package var subscription: StripeID?
    package var customer: StripeID?
    package var created: Int64
    package var livemode: Bool
    package var currency: String?
    package var amountTotal: Int64?
    /// Present when asked for with `expand[]=line_items`.
    package var lineItems: StripeList<StripeLineItem>?

    enum CodingKeys: String, CodingKey {
        case id, mode, status, url, metadata, subscription, customer, created, livemode, currency
        case paymentStatus = "payment_status"
        case clientReferenceID = "client_reference_id"
        case paymentIntent = "payment_intent"
        case amountTotal = "amount_total"
        case lineItems = "line_items"
    }
}

/// An `item` of a Checkout Session's `line_items`.
package struct StripeLineItem: Codable, Sendable, Equatable {
    package var price: StripeID?
    package var quantity: Int?
}

/// A `subscription`. Its periods are its items' (`items.data[].current_period_start/end`).
package struct StripeSubscription: Codable, Sendable, Equatable {
    package var id: String
    /// `incomplete`, `incomplete_expired`, `trialing`, `active`, `past_due`, `canceled`, `unpaid` or `paused`.
    package var status: String
    package var cancelAtPeriodEnd: Bool
    package var cancelAt: Int64?
    package var canceledAt: Int64?
    package var endedAt: Int64?
    package var startDate: Int64?
    package var created: Int64
    package var livemode: Bool
    package var metadata: [String: String]?
    package var customer: StripeID?
    package var latestInvoice: StripeID?
    package var currency: String?
    package var items: StripeList<Item>

    /// A `subscription_item`.
    package struct Item: Codable, Sendable, Equatable {
        package var id: String
        package var price: StripeID
        package var quantity: Int?
        package var currentPeriodStart: Int64
        package var currentPeriodEnd: Int64

        enum CodingKeys: String, CodingKey {
            case id, price, quantity
            case currentPeriodStart = "current_period_start"
            case currentPeriodEnd = "current_period_end"
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, status, created, livemode, metadata, customer, currency, items
        case cancelAtPeriodEnd = "cancel_at_period_end"
        case cancelAt = "cancel_at"
        case canceledAt = "canceled_at"
        case endedAt = "ended_at"
        case startDate = "start_date"
        case latestInvoice = "latest_invoice"
    }
}

/// An `invoice`. The subscription it bills is `parent.subscription_details.subscription`.
package struct StripeInvoice: Codable, Sendable, Equatable {
    package var id: String
    /// `draft`, `open`, `paid`, `uncollectible` or `void`.
    package var status: String?
    /// `subscription_create`, `subscription_cycle`, `subscription_update`, `manual`, ...
    package var billingReason: String?
    package var created: Int64
    package var livemode: Bool
    package var currency: String
    package var amountPaid: Int64
    package var attemptCount: Int?
    package var nextPaymentAttempt: Int64?
    package var parent: Parent?
    package var lines: StripeList<Line>
    package var statusTransitions: StatusTransitions?

    /// Why the invoice exists.
    package struct Parent: Codable, Sendable, Equatable {
        package var subscriptionDetails: SubscriptionDetails?

        package struct SubscriptionDetails: Codable, Sendable, Equatable {
            package var subscription: StripeID?
            /// The subscription's metadata when the invoice was finalized.
            package var metadata: [String: String]?
        }

        enum CodingKeys: String, CodingKey {
            case subscriptionDetails = "subscription_details"
        }
    }

    /// A `line_item`: what it bills and for which period.
    package struct Line: Codable, Sendable, Equatable {
        package var id: String
        package var period: Period
        package var pricing: Pricing?
        package var quantity: Int?

        package struct Period: Codable, Sendable, Equatable {
            package var start: Int64
            package var end: Int64
        }

        package struct Pricing: Codable, Sendable, Equatable {
            package var priceDetails: PriceDetails?

            package struct PriceDetails: Codable, Sendable, Equatable {
                package var price: StripeID?
            }

            enum CodingKeys: String, CodingKey {
                case priceDetails = "price_details"
            }
        }
    }

    package struct StatusTransitions: Codable, Sendable, Equatable {
        package var paidAt: Int64?

        enum CodingKeys: String, CodingKey {
            case paidAt = "paid_at"
        }
    }

    /// The subscription the invoice bills, if any.
    package var subscriptionID: String? { parent?.subscriptionDetails?.subscription?.id }

    enum CodingKeys: String, CodingKey {
        case id, status, created, livemode, currency, parent, lines
        case billingReason = "billing_reason"
        case amountPaid = "amount_paid"
        case attemptCount = "attempt_count"
        case nextPaymentAttempt = "next_payment_attempt"
        case statusTransitions = "status_transitions"
    }
}

/// An `invoice_payment`: which invoice a payment (a PaymentIntent) paid.
package struct StripeInvoicePayment: Codable, Sendable, Equatable {
    package var id: String
    package var invoice: StripeID
    /// `paid`, `open` or `canceled`.
    package var status: String?
    package var payment: Payment

    package struct Payment: Codable, Sendable, Equatable {
        /// `payment_intent` or `charge`.
        package var type: String
        package var paymentIntent: StripeID?
        package var charge: StripeID?

        enum CodingKeys: String, CodingKey {
            case type, charge
            case paymentIntent = "payment_intent"
        }
    }
}

/// A `payment_intent`.
package struct StripePaymentIntent: Codable, Sendable, Equatable {
    package var id: String
    /// `succeeded`, `processing`, `requires_payment_method`, `canceled`, ...
    package var status: String
    package var amount: Int64
    package var amountReceived: Int64?
    package var currency: String
    package var created: Int64
    package var livemode: Bool
    package var metadata: [String: String]?
    package var latestCharge: StripeID?
    /// The Stripe customer who paid, if the payment had one.
    package var customer: StripeID?

    enum CodingKeys: String, CodingKey {
        case id, status, amount, currency, created, livemode, metadata, customer
        case amountReceived = "amount_received"
        case latestCharge = "latest_charge"
    }
}

/// A `charge`.
package struct StripeCharge: Codable, Sendable, Equatable {
    package var id: String
    package var amount: Int64
    package var amountRefunded: Int64
    package var refunded: Bool
    package var disputed: Bool
    package var paid: Bool?
    package var status: String?
    package var created: Int64
    package var livemode: Bool
    package var currency: String
    package var paymentIntent: StripeID?

    enum CodingKeys: String, CodingKey {
        case id, amount, refunded, disputed, paid, status, created, livemode, currency
        case amountRefunded = "amount_refunded"
        case paymentIntent = "payment_intent"
    }
}

/// A `dispute`.
package struct StripeDispute: Codable, Sendable, Equatable {
    package var id: String
    package var charge: StripeID
    package var paymentIntent: StripeID?
    /// `warning_needs_response`, `warning_under_review`, `warning_closed`, `needs_response`, `under_review`, `won`,
    /// `lost` (and `prevented`).
    package var status: String
    package var created: Int64
    package var livemode: Bool

    enum CodingKeys: String, CodingKey {
        case id, charge, status, created, livemode
        case paymentIntent = "payment_intent"
    }
}

/// The body of every Stripe API error: `{"error": {"type": ..., "code": ..., "message": ..., "param": ...}}`.
package struct StripeErrorResponse: Codable, Sendable, Equatable {
    package var error: StripeErrorBody

    package init(error: StripeErrorBody) {
        self.error = error
    }
}

/// Stripe's error object.
package struct StripeErrorBody: Codable, Sendable, Equatable {
    /// `api_error`, `card_error`, `idempotency_error` or `invalid_request_error`.
    package var type: String
    /// For some errors, a short string (`resource_missing`, `parameter_missing`, ...).
    package var code: String?
    package var message: String?
    /// The parameter the error is about.
    package var param: String?

    package init(type: String, code: String? = nil, message: String? = nil, param: String? = nil) {
        self.type = type
        self.code = code
        self.message = message
        self.param = param
    }
}

/// A `billing_portal.session`: a short-lived link to Stripe's customer portal for one customer.
package struct StripePortalSession: Codable, Sendable, Equatable {
    package var id: String
    package var customer: String
    /// Where to send the customer.
    package var url: String
    package var livemode: Bool
}
