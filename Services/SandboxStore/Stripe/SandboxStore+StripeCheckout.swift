import Foundation

/// Stripe Checkout in the sandbox: sessions made through the API, paid on the hosted page (or its control) with a
/// test card.
extension SandboxStore {
    /// `POST /v1/checkout/sessions`: one line item (`line_items[0]`); `baseURL` is where the hosted page is.
    func stripeCreateSession(_ form: StripeForm, baseURL: String, at now: Date) throws(StripeError)
        -> StripeSessionRecord
    {
        try form.allow([
            "mode", "line_items", "success_url", "cancel_url", "client_reference_id", "customer", "customer_email",
            "metadata", "payment_intent_data", "subscription_data", "payment_method_types", "customer_creation",
            "allow_promotion_codes", "locale", "ui_mode",
        ])
        let mode = try form.required("mode")
        guard mode == "payment" || mode == "subscription" else {
            throw StripeError.invalid("Invalid mode: must be one of payment, setup, or subscription", param: "mode")
        }
        guard form.has("line_items") else { throw StripeError.parameterMissing("line_items") }
        if form.has("line_items[1]") {
            throw StripeError.invalid(
                "The sandbox store sells one line item per Checkout Session.", param: "line_items[1]")
        }
        let priceId = try form.required("line_items[0][price]")
        let price = try stripeFind(StripePriceRecord.self, priceId, param: "line_items[0][price]")
        guard price.active else {
            throw StripeError.invalid(
                "The price specified is inactive. This field only accepts active prices.",
                param: "line_items[0][price]")
        }
        if mode == "payment" && price.isRecurring {
            throw StripeError.invalid(
                "You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or "
                    + "use only one-time prices.", param: "line_items[0][price]")
        }
        if mode == "subscription" && !price.isRecurring {
            throw StripeError.invalid(
                "You must provide at least one recurring price in `subscription` mode when using prices.",
                param: "line_items")
        }
        let quantity = try form.integer("line_items[0][quantity]") ?? 1
        guard quantity >= 1 else {
            throw StripeError.invalid("Quantity must be at least 1.", param: "line_items[0][quantity]")
        }
        if let customer = form["customer"] {
            _ = try stripeFind(StripeCustomerRecord.self, customer, param: "customer")
        }
        if form["customer"] != nil && form["customer_email"] != nil {
            throw StripeError.invalid(
                "You may only specify one of these parameters: customer, customer_email.", param: "customer_email")
        }
        let id = StripeIdentifiers.make("cs_test_", length: 58)
        let session = StripeSessionRecord(
            id: id, mode: mode, price: price, quantity: quantity, successURL: form["success_url"],
            cancelURL: form["cancel_url"], clientReferenceId: form["client_reference_id"], customer: form["customer"],
            customerEmail: form["customer_email"], metadata: form.map("metadata"),
            paymentIntentMetadata: form.map("payment_intent_data[metadata]"),
            subscriptionMetadata: form.map("subscription_data[metadata]"), status: "open", paymentStatus: "unpaid",
            url: "\(baseURL)/stripe/pay/\(id)", created: now.stripeSeconds, expiresAt: now.stripeSeconds + 86_400)
        stripePut(session)
        return session
    }

    /// Pays the open session `id` with `cardNumber`. Paid: the customer (made when the session had none), the card
    /// attached, and a payment (payment mode) or a subscription with its first invoice (subscription mode); the
    /// session is `complete`. Declined: a failed payment intent (`payment_intent.payment_failed`), a 402 card error,
    /// and the session stays `open` to be paid again.
    func stripePaySession(_ id: String, cardNumber: String, at now: Date) throws(StripeError) -> StripeSessionRecord {
        var session = try stripeFind(StripeSessionRecord.self, id)
        guard session.status == "open" else {
            throw StripeError.invalid("This Checkout Session is no longer open (\(session.status)).", status: 409)
        }
        guard let card = StripeTestCard.named(cardNumber) else {
            throw StripeError(
                status: 402, type: "card_error", code: "incorrect_number", message: "Your card number is incorrect.",
                param: "number")
        }
        var customer = try session.customer.map { id throws(StripeError) in
            try stripeFind(StripeCustomerRecord.self, id)
        }
        let paymentMethod = StripeIdentifiers.make("pm_")
        if !card.charges(atCheckout: true) {
            let (intent, _) = stripeCharge(
                amount: session.amount, currency: session.price.currency, customer: customer?.id, card: card,
                paymentMethod: paymentMethod, atCheckout: true, description: nil,
                metadata: session.paymentIntentMetadata, at: now)
            session.paymentIntent = intent.id
            stripePut(session)
            throw StripeError.declined(
                intent.lastError ?? StripeDecline(code: "card_declined", message: card.declineMessage),
                paymentIntent: intent.json)
        }
        if customer == nil {
            let made = StripeCustomerRecord(
                id: StripeIdentifiers.make("cus_", length: 14), email: session.customerEmail, name: nil,
                description: nil, metadata: [:], created: now.stripeSeconds)
            stripePut(made)
            stripeEmit("customer.created", made.json, at: now)
            customer = made
        }
        guard var payer = customer else { return session }
        payer.paymentMethod = paymentMethod
        payer.card = card
        stripePut(payer)
        session.customer = payer.id
        session.customerEmail = session.customerEmail ?? payer.email
        if session.mode == "payment" {
            let (intent, _) = stripeCharge(
                amount: session.amount, currency: session.price.currency, customer: payer.id, card: card,
                paymentMethod: paymentMethod, atCheckout: true, description: session.price.productName,
                metadata: session.paymentIntentMetadata, at: now)
            session.paymentIntent = intent.id
            session.paymentStatus = "paid"
        } else {
            let (subscription, invoice) = stripeStartSubscription(session, customer: payer, at: now)
            session.subscription = subscription.id
            session.invoice = invoice.id
            session.paymentStatus = invoice.amount == 0 ? "no_payment_required" : "paid"
        }
        session.status = "complete"
        stripePut(session)
        stripeEmit("checkout.session.completed", session.json(expandLineItems: false), at: now)
        return session
    }

    /// `POST /v1/checkout/sessions/{id}/expire`: an open session can no longer be paid
    /// (`checkout.session.expired`).
    func stripeExpireSession(_ id: String, at now: Date) throws(StripeError) -> StripeSessionRecord {
        var session = try stripeFind(StripeSessionRecord.self, id)
        guard session.status == "open" else {
            throw StripeError.invalid(
                "Only Checkout Sessions with a status in [\"open\"] can be expired. This Checkout Session has a "
                    + "status of \"\(session.status)\".")
        }
        session.status = "expired"
        stripePut(session)
        stripeEmit("checkout.session.expired", session.json(expandLineItems: false), at: now)
        return session
    }

    /// Charges `card` once: a payment intent and its charge, succeeded or failed, with their events
    /// (`charge.succeeded` + `payment_intent.succeeded`, or `charge.failed` + `payment_intent.payment_failed`).
    func stripeCharge(
        amount: Int64, currency: String, customer: String?, card: StripeTestCard, paymentMethod: String?,
        atCheckout: Bool, description: String?, metadata: [String: String], at now: Date
    ) -> (StripePaymentIntentRecord, StripeChargeRecord) {
        let succeeded = card.charges(atCheckout: atCheckout)
        let decline =
            succeeded
            ? nil : StripeDecline(code: "card_declined", declineCode: card.declineCode, message: card.declineMessage)
        let intentId = StripeIdentifiers.make("pi_")
        let charge = StripeChargeRecord(
            id: StripeIdentifiers.make("ch_"), amount: amount, amountRefunded: 0, currency: currency,
            customer: customer, paymentIntent: intentId, paymentMethod: paymentMethod, card: card, metadata: metadata,
            description: description, succeeded: succeeded, failure: decline, disputed: false,
            created: now.stripeSeconds)
        let intent = StripePaymentIntentRecord(
            id: intentId, amount: amount, currency: currency, customer: customer, description: description,
            metadata: metadata, status: succeeded ? "succeeded" : "requires_payment_method",
            paymentMethod: succeeded ? paymentMethod : nil, latestCharge: charge.id, lastError: decline,
            created: now.stripeSeconds)
        stripePut(charge)
        stripePut(intent)
        stripeEmit(succeeded ? "charge.succeeded" : "charge.failed", charge.json, at: now)
        stripeEmit(succeeded ? "payment_intent.succeeded" : "payment_intent.payment_failed", intent.json, at: now)
        return (intent, charge)
    }

    /// `POST /v1/billing_portal/sessions`.
    func stripeCreatePortal(_ form: StripeForm, baseURL: String, at now: Date) throws(StripeError)
        -> StripePortalRecord
    {
        try form.allow(["customer", "return_url", "configuration", "locale", "flow_data"])
        let customer = try stripeFind(StripeCustomerRecord.self, try form.required("customer"), param: "customer")
        let id = StripeIdentifiers.make("bps_")
        let portal = StripePortalRecord(
            id: id, customer: customer.id, returnURL: form["return_url"], url: "\(baseURL)/stripe/portal/\(id)",
            created: now.stripeSeconds)
        stripePut(portal)
        return portal
    }

    /// The subscriptions of `customer`, newest first.
    func stripeSubscriptions(customer: String) -> [StripeSubscriptionRecord] {
        stripeAll(StripeSubscriptionRecord.self).filter { $0.customer == customer }.sorted { $0.created > $1.created }
    }

    /// A control: `customer` pays with `cardNumber` from now on (later renewals and retries).
    func stripeSetCard(customer id: String, cardNumber: String) throws(StripeError) -> StripeCustomerRecord {
        var customer = try stripeFind(StripeCustomerRecord.self, id)
        guard let card = StripeTestCard.named(cardNumber) else {
            throw StripeError.invalid("Unknown test card: \(cardNumber)", param: "card")
        }
        customer.card = card
        customer.paymentMethod = StripeIdentifiers.make("pm_")
        stripePut(customer)
        for var subscription in stripeSubscriptions(customer: id) where !subscription.isOver {
            subscription.defaultPaymentMethod = customer.paymentMethod
            stripePut(subscription)
        }
        return customer
    }
}
