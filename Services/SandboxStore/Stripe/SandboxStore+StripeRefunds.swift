import Foundation

/// Refunds (through the API) and disputes (opened and closed by the controls, as a card holder and their bank would).
extension SandboxStore {
    /// `POST /v1/refunds`: `charge` or `payment_intent`, optional `amount` (default: what is left), `reason`,
    /// `metadata`. Makes `refund.created` and `charge.refunded`.
    func stripeRefund(_ form: StripeForm, at now: Date) throws(StripeError) -> StripeRefundRecord {
        try form.allow(["charge", "payment_intent", "amount", "reason", "metadata", "instructions_email"])
        var charge: StripeChargeRecord
        if let chargeId = form["charge"] {
            charge = try stripeFind(StripeChargeRecord.self, chargeId, param: "charge")
        } else if let intentId = form["payment_intent"] {
            let intent = try stripeFind(StripePaymentIntentRecord.self, intentId, param: "payment_intent")
            guard intent.status == "succeeded", let latest = intent.latestCharge else {
                throw StripeError.invalid(
                    "This PaymentIntent does not have a successful charge to refund.", param: "payment_intent",
                    code: "charge_not_refundable")
            }
            charge = try stripeFind(StripeChargeRecord.self, latest, param: "payment_intent")
        } else {
            throw StripeError.invalid(
                "One of the following params should be provided for this request: payment_intent or charge.")
        }
        guard charge.succeeded else {
            throw StripeError.invalid(
                "Charge \(charge.id) has not succeeded.", param: "charge", code: "charge_not_refundable")
        }
        guard !charge.disputed else {
            throw StripeError.invalid(
                "Charge \(charge.id) has been charged back; cannot issue a refund.", param: "charge",
                code: "charge_disputed")
        }
        guard !charge.refunded else {
            throw StripeError.invalid(
                "Charge \(charge.id) has already been refunded.", param: "charge", code: "charge_already_refunded")
        }
        let left = charge.amount - charge.amountRefunded
        let amount = try form.integer("amount") ?? left
        guard amount >= 1 else { throw StripeError.invalid("Amount must be at least 1.", param: "amount") }
        guard amount <= left else {
            throw StripeError.invalid(
                "Refund amount (\(amount)) is greater than unrefunded amount on charge (\(left))", param: "amount",
                code: "amount_too_large")
        }
        if let reason = form["reason"], !["duplicate", "fraudulent", "requested_by_customer"].contains(reason) {
            throw StripeError.invalid(
                "Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer", param: "reason")
        }
        let before = charge.json
        charge.amountRefunded += amount
        stripePut(charge)
        let refund = StripeRefundRecord(
            id: StripeIdentifiers.make("re_"), amount: amount, charge: charge.id, paymentIntent: charge.paymentIntent,
            currency: charge.currency, reason: form["reason"], metadata: form.map("metadata"),
            created: now.stripeSeconds)
        stripePut(refund)
        stripeEmit("refund.created", refund.json, at: now)
        stripeEmit("charge.refunded", charge.json, previous: Self.changed(before, charge.json), at: now)
        return refund
    }

    /// A control: the card holder disputes the charge (`charge.dispute.created`; the charge is `disputed`).
    func stripeOpenDispute(charge id: String, reason: String, at now: Date) throws(StripeError) -> StripeDisputeRecord {
        var charge = try stripeFind(StripeChargeRecord.self, id)
        guard charge.succeeded, !charge.disputed else {
            throw StripeError.invalid("Charge \(id) cannot be disputed (failed, or disputed already).", status: 409)
        }
        let before = charge.json
        charge.disputed = true
        stripePut(charge)
        let dispute = StripeDisputeRecord(
            id: StripeIdentifiers.make("dp_"), amount: charge.amount - charge.amountRefunded, charge: charge.id,
            paymentIntent: charge.paymentIntent, currency: charge.currency, reason: reason, status: "needs_response",
            created: now.stripeSeconds)
        stripePut(dispute)
        stripeEmit("charge.dispute.created", dispute.json, at: now)
        stripeEmit("charge.updated", charge.json, previous: Self.changed(before, charge.json), at: now)
        return dispute
    }

    /// A control: the bank decides (`won` or `lost`): `charge.dispute.closed`.
    func stripeCloseDispute(_ id: String, status: String, at now: Date) throws(StripeError) -> StripeDisputeRecord {
        var dispute = try stripeFind(StripeDisputeRecord.self, id)
        guard status == "won" || status == "lost" else {
            throw StripeError.invalid("status must be won or lost", param: "status")
        }
        guard dispute.status == "needs_response" else {
            throw StripeError.invalid("Dispute \(id) is closed already (\(dispute.status)).", status: 409)
        }
        dispute.status = status
        stripePut(dispute)
        stripeEmit("charge.dispute.closed", dispute.json, at: now)
        return dispute
    }

    /// `GET /v1/invoice_payments`: by `invoice`, or by the payment intent that paid it.
    func stripeInvoicePayments(invoice: String?, paymentIntent: String?) -> [StripeValue] {
        stripeAll(StripeInvoiceRecord.self).filter { record in
            (invoice.map { $0 == record.id } ?? true)
                && (paymentIntent.map { $0 == record.paymentIntent } ?? true)
        }.sorted { $0.created > $1.created }.compactMap(\.paymentJSON)
    }
}
