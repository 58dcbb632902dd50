import Foundation

/// A Checkout Session (`cs_test_...`): one line item of one price, paid on the sandbox's hosted page.
struct StripeSessionRecord: Codable, Sendable, Equatable {
    var id: String
    /// `payment` or `subscription`.
    var mode: String
    var price: StripePriceRecord
    var quantity: Int64
    var successURL: String?
    var cancelURL: String?
    var clientReferenceId: String?
    var customer: String?
    var customerEmail: String?
    var metadata: [String: String]
    var paymentIntentMetadata: [String: String]
    var subscriptionMetadata: [String: String]
    /// `open`, `complete` or `expired`.
    var status: String
    /// `unpaid`, `paid` or `no_payment_required`.
    var paymentStatus: String
    var paymentIntent: String?
    var subscription: String?
    var invoice: String?
    var url: String
    var created: Int64
    var expiresAt: Int64

    var amount: Int64 { price.unitAmount * quantity }

    /// The line item (`item`) of the session.
    var lineItemJSON: StripeValue {
        [
            "id": .string("li_" + id.suffix(24)), "object": "item", "amount_discount": 0,
            "amount_subtotal": .int(amount), "amount_tax": 0, "amount_total": .int(amount),
            "currency": .string(price.currency), "description": .string(price.productName), "metadata": [:],
            "price": price.json, "quantity": .int(quantity),
        ]
    }

    var lineItemsURL: String { "/v1/checkout/sessions/\(id)/line_items" }

    /// `customer_details`: once the customer has paid.
    var customerDetailsJSON: StripeValue {
        guard status == "complete" else { return nil }
        return ["email": .text(customerEmail), "name": nil, "phone": nil, "tax_exempt": "none", "address": nil]
    }

    func json(expandLineItems: Bool) -> StripeValue {
        var value: StripeValue = [
            "id": .string(id), "object": "checkout.session", "amount_subtotal": .int(amount),
            "amount_total": .int(amount), "cancel_url": .text(cancelURL),
            "client_reference_id": .text(clientReferenceId), "created": .int(created),
            "currency": .string(price.currency), "customer": .text(customer), "customer_creation": nil,
            "customer_details": customerDetailsJSON,
            "customer_email": .text(customerEmail), "expires_at": .int(expiresAt), "invoice": .text(invoice),
            "livemode": false, "locale": nil, "metadata": .map(metadata), "mode": .string(mode),
            "payment_intent": .text(paymentIntent), "payment_method_types": ["card"],
            "payment_status": .string(paymentStatus), "status": .string(status),
            "subscription": .text(subscription), "success_url": .text(successURL), "ui_mode": "hosted",
            "url": .text(status == "open" ? url : nil),
        ]
        if expandLineItems { value["line_items"] = .list([lineItemJSON], url: lineItemsURL) }
        return value
    }
}

/// A decline, as `last_payment_error` and the API's card errors carry it.
struct StripeDecline: Codable, Sendable, Equatable {
    var code: String
    var declineCode: String?
    var message: String
}

/// A PaymentIntent (`pi_...`): one attempt to collect an amount, succeeded or declined.
struct StripePaymentIntentRecord: Codable, Sendable, Equatable {
    var id: String
    var amount: Int64
    var currency: String
    var customer: String?
    var description: String?
    var metadata: [String: String]
    /// `succeeded` or `requires_payment_method` (declined).
    var status: String
    var paymentMethod: String?
    var latestCharge: String?
    var lastError: StripeDecline?
    var created: Int64

    var json: StripeValue {
        [
            "id": .string(id), "object": "payment_intent", "amount": .int(amount), "amount_capturable": 0,
            "amount_received": .int(status == "succeeded" ? amount : 0), "application": nil,
            "canceled_at": nil, "cancellation_reason": nil, "capture_method": "automatic",
            "client_secret": .string("\(id)_secret_sandbox"), "confirmation_method": "automatic",
            "created": .int(created), "currency": .string(currency), "customer": .text(customer),
            "description": .text(description),
            "last_payment_error": lastErrorJSON,
            "latest_charge": .text(latestCharge), "livemode": false, "metadata": .map(metadata),
            "next_action": nil, "payment_method": .text(paymentMethod), "payment_method_types": ["card"],
            "receipt_email": nil, "setup_future_usage": nil, "status": .string(status),
        ]
    }
}

extension StripePaymentIntentRecord {
    /// `last_payment_error`, or `null`.
    var lastErrorJSON: StripeValue {
        guard let lastError else { return nil }
        return [
            "type": "card_error", "code": .string(lastError.code), "decline_code": .text(lastError.declineCode),
            "message": .string(lastError.message),
        ]
    }
}

/// A charge (`ch_...`), succeeded or failed, with what was refunded and whether it is disputed.
struct StripeChargeRecord: Codable, Sendable, Equatable {
    var id: String
    var amount: Int64
    var amountRefunded: Int64
    var currency: String
    var customer: String?
    var paymentIntent: String
    var paymentMethod: String?
    var card: StripeTestCard
    var metadata: [String: String]
    var description: String?
    var succeeded: Bool
    var failure: StripeDecline?
    var disputed: Bool
    var created: Int64

    var refunded: Bool { amountRefunded >= amount && amount > 0 }

    var json: StripeValue {
        [
            "id": .string(id), "object": "charge", "amount": .int(amount),
            "amount_captured": .int(succeeded ? amount : 0), "amount_refunded": .int(amountRefunded),
            "application": nil, "balance_transaction": nil,
            "billing_details": ["address": nil, "email": nil, "name": nil, "phone": nil],
            "captured": .bool(succeeded), "created": .int(created), "currency": .string(currency),
            "customer": .text(customer), "description": .text(description), "disputed": .bool(disputed),
            "failure_code": .text(failure?.code), "failure_message": .text(failure?.message),
            "fraud_details": [:], "livemode": false, "metadata": .map(metadata),
            "outcome": [
                "network_status": succeeded ? "approved_by_network" : "declined_by_network",
                "reason": .text(failure?.declineCode), "risk_level": "normal",
                "seller_message": succeeded ? "Payment complete." : "The bank did not return any further details.",
                "type": succeeded ? "authorized" : "issuer_declined",
            ],
            "paid": .bool(succeeded), "payment_intent": .string(paymentIntent),
            "payment_method": .text(paymentMethod),
            "payment_method_details": ["card": card.cardJSON, "type": "card"], "receipt_email": nil,
            "receipt_url": nil, "refunded": .bool(refunded), "status": succeeded ? "succeeded" : "failed",
        ]
    }
}

/// A refund (`re_...`) of a charge, whole or in part.
struct StripeRefundRecord: Codable, Sendable, Equatable {
    var id: String
    var amount: Int64
    var charge: String
    var paymentIntent: String
    var currency: String
    var reason: String?
    var metadata: [String: String]
    var created: Int64

    var json: StripeValue {
        [
            "id": .string(id), "object": "refund", "amount": .int(amount), "balance_transaction": nil,
            "charge": .string(charge), "created": .int(created), "currency": .string(currency),
            "destination_details": ["card": ["type": "refund"], "type": "card"], "metadata": .map(metadata),
            "payment_intent": .string(paymentIntent), "reason": .text(reason), "receipt_number": nil,
            "status": "succeeded",
        ]
    }
}

/// A dispute (`dp_...`) of a charge: opened and closed by the controls.
struct StripeDisputeRecord: Codable, Sendable, Equatable {
    var id: String
    var amount: Int64
    var charge: String
    var paymentIntent: String
    var currency: String
    var reason: String
    /// `needs_response`, then `won` or `lost`.
    var status: String
    var created: Int64

    var json: StripeValue {
        [
            "id": .string(id), "object": "dispute", "amount": .int(amount), "balance_transactions": [],
            "charge": .string(charge), "created": .int(created), "currency": .string(currency),
            "evidence_details": [
                "due_by": .int(created + 7 * 86_400), "has_evidence": false, "past_due": false,
                "submission_count": 0,
            ],
            "is_charge_refundable": false, "livemode": false, "metadata": [:],
            "payment_intent": .string(paymentIntent), "reason": .string(reason), "status": .string(status),
        ]
    }
}

/// A customer portal session (`bps_...`).
struct StripePortalRecord: Codable, Sendable, Equatable {
    var id: String
    var customer: String
    var returnURL: String?
    var url: String
    var created: Int64

    var json: StripeValue {
        [
            "id": .string(id), "object": "billing_portal.session", "configuration": "bpc_sandbox",
            "created": .int(created), "customer": .string(customer), "flow": nil, "livemode": false,
            "locale": nil, "on_behalf_of": nil, "return_url": .text(returnURL), "url": .string(url),
        ]
    }
}
