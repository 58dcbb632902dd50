import Foundation
import ShopkeeperStores

/// A subscription (`sub_...`) with its one item (`si_...`), moved on by the sandbox's clock.
struct StripeSubscriptionRecord: Codable, Sendable, Equatable {
    var id: String
    var itemId: String
    var customer: String
    var price: StripePriceRecord
    var quantity: Int64
    var metadata: [String: String]
    /// `trialing`, `active`, `past_due`, `canceled` (or `unpaid`).
    var status: String
    var currentPeriodStart: Int64
    var currentPeriodEnd: Int64
    var cancelAtPeriodEnd: Bool
    var cancelAt: Int64?
    var canceledAt: Int64?
    var endedAt: Int64?
    /// Why it was cancelled: `cancellation_requested` or `payment_failed`.
    var cancellationReason: String?
    var trialStart: Int64?
    var trialEnd: Int64?
    var latestInvoice: String?
    var defaultPaymentMethod: String?
    var startDate: Int64
    var created: Int64
    /// Past due: the open invoice being retried, when the next attempt is due (UNIX s) and how many failed.
    var retryInvoice: String?
    var nextRetry: Int64?
    var failedAttempts: Int = 0

    var isOver: Bool { status == "canceled" || status == "unpaid" || status == "incomplete_expired" }

    var itemJSON: StripeValue {
        [
            "id": .string(itemId), "object": "subscription_item", "created": .int(created),
            "current_period_end": .int(currentPeriodEnd), "current_period_start": .int(currentPeriodStart),
            "discounts": [], "metadata": [:], "price": price.json, "quantity": .int(quantity),
            "subscription": .string(id), "tax_rates": [],
        ]
    }

    var json: StripeValue {
        [
            "id": .string(id), "object": "subscription", "application": nil,
            "billing_cycle_anchor": .int(trialEnd ?? startDate), "cancel_at": .number(cancelAt),
            "cancel_at_period_end": .bool(cancelAtPeriodEnd), "canceled_at": .number(canceledAt),
            "cancellation_details": ["comment": nil, "feedback": nil, "reason": .text(cancellationReason)],
            "collection_method": "charge_automatically", "created": .int(created),
            "currency": .string(price.currency), "customer": .string(customer), "days_until_due": nil,
            "default_payment_method": .text(defaultPaymentMethod), "description": nil, "discounts": [],
            "ended_at": .number(endedAt),
            "items": .list([itemJSON], url: "/v1/subscription_items?subscription=\(id)"),
            "latest_invoice": .text(latestInvoice), "livemode": false, "metadata": .map(metadata),
            "pause_collection": nil, "start_date": .int(startDate), "status": .string(status),
            "test_clock": nil, "trial_end": .number(trialEnd), "trial_start": .number(trialStart),
        ]
    }
}

/// An invoice (`in_...`) of a subscription's period, paid or open (retried).
struct StripeInvoiceRecord: Codable, Sendable, Equatable {
    var id: String
    var customer: String
    var subscription: String
    var subscriptionItem: String
    /// The subscription's metadata when the invoice was made (`parent.subscription_details.metadata`).
    var subscriptionMetadata: [String: String]
    var price: StripePriceRecord
    var quantity: Int64
    /// `subscription_create` or `subscription_cycle`.
    var billingReason: String
    /// `open`, `paid`, or `uncollectible`.
    var status: String
    var attemptCount: Int
    var nextPaymentAttempt: Int64?
    var periodStart: Int64
    var periodEnd: Int64
    /// The payment intent of the latest attempt, when there was one (not for a free trial's invoice).
    var paymentIntent: String?
    var paidAt: Int64?
    var created: Int64
    /// Zero for a free trial's first invoice.
    var amount: Int64

    var json: StripeValue {
        let paid = status == "paid"
        let line: StripeValue = [
            "id": .string("il_" + id.dropFirst(3)), "object": "line_item", "amount": .int(amount),
            "currency": .string(price.currency), "description": .string("\(quantity) × \(price.productName)"),
            "discount_amounts": [], "discountable": true, "discounts": [], "invoice": .string(id), "livemode": false,
            "metadata": .map(subscriptionMetadata),
            "parent": [
                "type": "subscription_item_details", "invoice_item_details": nil,
                "subscription_item_details": [
                    "invoice_item": nil, "proration": false, "proration_details": ["credited_items": nil],
                    "subscription": .string(subscription), "subscription_item": .string(subscriptionItem),
                ],
            ],
            "period": ["end": .int(periodEnd), "start": .int(periodStart)],
            "pricing": [
                "type": "price_details",
                "price_details": ["price": .string(price.id), "product": .string(price.product)],
                "unit_amount_decimal": .string(String(amount / max(1, quantity))),
            ],
            "quantity": .int(quantity), "subtotal": .int(amount), "taxes": [],
        ]
        return [
            "id": .string(id), "object": "invoice", "account_country": "US", "account_name": "Shopkeeper sandbox",
            "amount_due": .int(amount), "amount_paid": .int(paid ? amount : 0),
            "amount_remaining": .int(paid ? 0 : amount), "amount_shipping": 0, "application": nil,
            "attempt_count": .int(Int64(attemptCount)), "attempted": .bool(attemptCount > 0),
            "auto_advance": .bool(!paid), "billing_reason": .string(billingReason),
            "collection_method": "charge_automatically", "created": .int(created),
            "currency": .string(price.currency), "customer": .string(customer), "description": nil,
            "due_date": nil, "effective_at": .int(created), "hosted_invoice_url": nil, "invoice_pdf": nil,
            "lines": .list([line], url: "/v1/invoices/\(id)/lines"), "livemode": false, "metadata": [:],
            "next_payment_attempt": .number(nextPaymentAttempt),
            "number": .string("SBX-" + id.suffix(8).uppercased()),
            "parent": [
                "type": "subscription_details", "quote_details": nil,
                "subscription_details": [
                    "metadata": .map(subscriptionMetadata), "subscription": .string(subscription),
                ],
            ],
            "period_end": .int(periodEnd), "period_start": .int(periodStart), "status": .string(status),
            "status_transitions": [
                "finalized_at": .int(created), "marked_uncollectible_at": nil, "paid_at": .number(paidAt),
                "voided_at": nil,
            ],
            "subtotal": .int(amount), "subtotal_excluding_tax": .int(amount), "test_clock": nil,
            "total": .int(amount), "total_discount_amounts": [], "total_excluding_tax": .int(amount),
        ]
    }

    /// The `invoice_payment` linking this invoice to its payment intent (`nil` without one).
    var paymentJSON: StripeValue? {
        guard let paymentIntent else { return nil }
        let paid = status == "paid"
        return [
            "id": .string("inpay_" + id.dropFirst(3)), "object": "invoice_payment",
            "amount_paid": paid ? .int(amount) : nil, "amount_requested": .int(amount), "created": .int(created),
            "currency": .string(price.currency), "invoice": .string(id), "is_default": true, "livemode": false,
            "payment": ["type": "payment_intent", "payment_intent": .string(paymentIntent)],
            "status": paid ? "paid" : "open",
            "status_transitions": ["canceled_at": nil, "paid_at": .number(paidAt)],
        ]
    }
}

/// An event (`evt_...`) as Stripe keeps it: the object as it was when it happened.
struct StripeEventRecord: Codable, Sendable, Equatable {
    var id: String
    var type: String
    var created: Int64
    var object: StripeValue
    var previousAttributes: StripeValue?
    var requestId: String?
    var idempotencyKey: String?

    var json: StripeValue {
        var data: StripeValue = ["object": object]
        if let previousAttributes { data["previous_attributes"] = previousAttributes }
        return [
            "id": .string(id), "object": "event", "api_version": .string(StripeAPIVersion.current),
            "created": .int(created), "data": data, "livemode": false, "pending_webhooks": 0,
            "request": ["id": .text(requestId), "idempotency_key": .text(idempotencyKey)], "type": .string(type),
        ]
    }
}

/// The first answer to a request made with an `Idempotency-Key`, replayed to every retry with the same parameters.
struct StripeIdempotentReply: Codable, Sendable, Equatable {
    /// Method, path and the parameters, canonical: a retry must match it.
    var fingerprint: String
    var status: Int
    var body: StripeValue
    var created: Int64
}
