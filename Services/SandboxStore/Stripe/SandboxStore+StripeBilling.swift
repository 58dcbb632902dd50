import Foundation

/// Stripe Billing in the sandbox: subscriptions, their invoices each period, failed payments retried, cancellation.
///
/// Retries are Stripe's Smart Retries simplified to a fixed schedule: a failed renewal makes the subscription
/// `past_due` and is retried 3, 5 and 7 days (divided by the time scale) after the previous attempt; when the fourth
/// attempt fails too, the subscription is cancelled (`customer.subscription.deleted`, `cancellation_details.reason`
/// `payment_failed`), Stripe's default "cancel the subscription" setting. A card switched meanwhile
/// (`POST /sandbox/stripe/customers/{id}/card`) is used at the next attempt; `advance` runs that attempt now. While
/// past due the period does not move on: only the retries do.
extension SandboxStore {
    /// Days between the attempts at paying a renewal's invoice.
    static let stripeRetryDays = [3, 5, 7]

    /// The subscription a paid subscription-mode session starts, its first invoice paid (with a free trial: an
    /// invoice of 0 and status `trialing` until the trial ends).
    func stripeStartSubscription(_ session: StripeSessionRecord, customer: StripeCustomerRecord, at now: Date)
        -> (StripeSubscriptionRecord, StripeInvoiceRecord)
    {
        let start = now.stripeSeconds
        let trialDays = session.price.trialPeriodDays ?? 0
        let trialEnd: Int64? =
            trialDays > 0 ? start + max(1, Int64((Double(trialDays) * 86_400 / timeScale).rounded())) : nil
        var subscription = StripeSubscriptionRecord(
            id: StripeIdentifiers.make("sub_"), itemId: StripeIdentifiers.make("si_", length: 14),
            customer: customer.id, price: session.price, quantity: session.quantity,
            metadata: session.subscriptionMetadata, status: trialEnd == nil ? "active" : "trialing",
            currentPeriodStart: start,
            currentPeriodEnd: trialEnd ?? session.price.periodEnd(from: start, timeScale: timeScale),
            cancelAtPeriodEnd: false, trialStart: trialEnd.map { _ in start }, trialEnd: trialEnd,
            defaultPaymentMethod: customer.paymentMethod, startDate: start, created: start)
        var invoice = stripeMakeInvoice(
            subscription, reason: "subscription_create", amount: trialEnd == nil ? nil : 0, at: now)
        subscription.latestInvoice = invoice.id
        stripePut(subscription)
        stripeEmit("customer.subscription.created", subscription.json, at: now)
        if invoice.amount == 0 {
            invoice.status = "paid"
            invoice.paidAt = start
            stripePut(invoice)
            stripeEmit("invoice.paid", invoice.json, at: now)
        } else if let card = customer.card {
            invoice = stripePayInvoice(
                invoice, card: card, paymentMethod: customer.paymentMethod, atCheckout: true, at: now)
        }
        return (subscription, invoice)
    }

    /// A new open invoice for the subscription's current period (`amount` nil: the price times the quantity).
    private func stripeMakeInvoice(
        _ subscription: StripeSubscriptionRecord, reason: String, amount: Int64?, at now: Date
    ) -> StripeInvoiceRecord {
        let invoice = StripeInvoiceRecord(
            id: StripeIdentifiers.make("in_"), customer: subscription.customer, subscription: subscription.id,
            subscriptionItem: subscription.itemId, subscriptionMetadata: subscription.metadata,
            price: subscription.price, quantity: subscription.quantity, billingReason: reason, status: "open",
            attemptCount: 0, periodStart: subscription.currentPeriodStart, periodEnd: subscription.currentPeriodEnd,
            created: now.stripeSeconds, amount: amount ?? subscription.price.unitAmount * subscription.quantity)
        stripePut(invoice)
        stripeEmit("invoice.created", invoice.json, at: now)
        stripeEmit("invoice.finalized", invoice.json, at: now)
        return invoice
    }

    /// One attempt at paying `invoice` with `card`: paid (`invoice.paid`, `invoice.payment_succeeded`) or still
    /// open (`invoice.payment_failed`), with the payment intent and charge of the attempt.
    private func stripePayInvoice(
        _ invoice: StripeInvoiceRecord, card: StripeTestCard, paymentMethod: String?, atCheckout: Bool, at now: Date
    ) -> StripeInvoiceRecord {
        var invoice = invoice
        let (intent, _) = stripeCharge(
            amount: invoice.amount, currency: invoice.price.currency, customer: invoice.customer, card: card,
            paymentMethod: paymentMethod, atCheckout: atCheckout,
            description: invoice.billingReason == "subscription_create"
                ? "Subscription creation" : "Subscription update",
            metadata: [:], at: now)
        invoice.paymentIntent = intent.id
        invoice.attemptCount += 1
        if intent.status == "succeeded" {
            invoice.status = "paid"
            invoice.paidAt = now.stripeSeconds
            invoice.nextPaymentAttempt = nil
            stripePut(invoice)
            stripeEmit("invoice.paid", invoice.json, at: now)
            stripeEmit("invoice.payment_succeeded", invoice.json, at: now)
        } else {
            let delay =
                Self.stripeRetryDays.indices.contains(invoice.attemptCount - 1)
                ? Self.stripeRetryDays[invoice.attemptCount - 1] : nil
            invoice.nextPaymentAttempt = delay.map { now.stripeSeconds + stripeScaled(days: $0) }
            stripePut(invoice)
            stripeEmit("invoice.payment_failed", invoice.json, at: now)
        }
        return invoice
    }

    /// `days` of real time, divided by the time scale, in seconds (at least one).
    func stripeScaled(days: Int) -> Int64 {
        max(1, Int64((Double(days) * 86_400 / timeScale).rounded()))
    }

    // MARK: clock

    /// Subscriptions with something due by `now`: a period (or trial) ended, a retry, a cancellation.
    func stripeSubscriptionsDue(at now: Date) -> [String] {
        let seconds = now.stripeSeconds
        return stripeAll(StripeSubscriptionRecord.self).filter { subscription in
            guard !subscription.isOver else { return false }
            if subscription.status == "past_due" { return (subscription.nextRetry ?? .max) <= seconds }
            return subscription.currentPeriodEnd <= seconds
        }.map(\.id)
    }

    /// Moves the subscription `id` on as Stripe would at `now`: ends it at its period's end when it was to cancel
    /// then; otherwise renews it (a new period, an invoice, a charge), or retries its unpaid invoice.
    func stripeStep(_ id: String, at now: Date) throws(StripeError) {
        var subscription = try stripeFind(StripeSubscriptionRecord.self, id)
        let seconds = now.stripeSeconds
        guard !subscription.isOver else { return }
        let before = subscription.json
        if subscription.status == "past_due" {
            guard let due = subscription.nextRetry, due <= seconds, let invoiceId = subscription.retryInvoice else {
                return
            }
            let customer = try stripeFind(StripeCustomerRecord.self, subscription.customer)
            guard let card = customer.card else { return }
            let invoice = stripePayInvoice(
                try stripeFind(StripeInvoiceRecord.self, invoiceId), card: card, paymentMethod: customer.paymentMethod,
                atCheckout: false, at: now)
            if invoice.status == "paid" {
                subscription.status = "active"
                subscription.retryInvoice = nil
                subscription.nextRetry = nil
                subscription.failedAttempts = 0
            } else if let next = invoice.nextPaymentAttempt {
                subscription.failedAttempts = invoice.attemptCount
                subscription.nextRetry = next
            } else {
                stripeEnd(&subscription, reason: "payment_failed", at: now)
                stripeEmit("customer.subscription.deleted", subscription.json, at: now)
                return
            }
            stripePut(subscription)
            stripeEmit(
                "customer.subscription.updated", subscription.json, previous: Self.changed(before, subscription.json),
                at: now)
            return
        }
        guard subscription.currentPeriodEnd <= seconds else { return }
        if subscription.cancelAtPeriodEnd {
            stripeEnd(&subscription, reason: "cancellation_requested", at: now)
            subscription.endedAt = subscription.currentPeriodEnd
            stripePut(subscription)
            stripeEmit("customer.subscription.deleted", subscription.json, at: now)
            return
        }
        // A new period from the end of the last one (or from now, when the store was stopped for longer).
        let end = subscription.currentPeriodEnd
        let start = subscription.price.periodEnd(from: end, timeScale: timeScale) > seconds ? end : seconds
        subscription.currentPeriodStart = start
        subscription.currentPeriodEnd = subscription.price.periodEnd(from: start, timeScale: timeScale)
        subscription.status = "active"
        let customer = try stripeFind(StripeCustomerRecord.self, subscription.customer)
        var invoice = stripeMakeInvoice(subscription, reason: "subscription_cycle", amount: nil, at: now)
        subscription.latestInvoice = invoice.id
        if let card = customer.card {
            invoice = stripePayInvoice(
                invoice, card: card, paymentMethod: customer.paymentMethod, atCheckout: false, at: now)
        }
        if invoice.status != "paid" {
            subscription.status = "past_due"
            subscription.retryInvoice = invoice.id
            subscription.nextRetry = invoice.nextPaymentAttempt
            subscription.failedAttempts = invoice.attemptCount
        }
        stripePut(subscription)
        stripeEmit(
            "customer.subscription.updated", subscription.json, previous: Self.changed(before, subscription.json),
            at: now)
    }

    /// Ends a subscription now.
    private func stripeEnd(_ subscription: inout StripeSubscriptionRecord, reason: String, at now: Date) {
        subscription.status = "canceled"
        subscription.endedAt = now.stripeSeconds
        subscription.canceledAt = subscription.canceledAt ?? now.stripeSeconds
        subscription.cancellationReason = reason
        subscription.retryInvoice = nil
        subscription.nextRetry = nil
        stripePut(subscription)
    }

    /// A control: whatever the subscription waits for (its period's or trial's end, or the next retry) is due now,
    /// and runs. A period lasts at least a second (Stripe's times are whole seconds): one advanced in the second it
    /// began ends a second later, so the next period ends later than this one did, never at the same second.
    func stripeAdvance(_ id: String, at now: Date) throws(StripeError) -> StripeSubscriptionRecord {
        var subscription = try stripeFind(StripeSubscriptionRecord.self, id)
        guard !subscription.isOver else {
            throw StripeError.invalid("The subscription has ended (\(subscription.status)).", status: 409)
        }
        let now = max(now, Date(timeIntervalSince1970: TimeInterval(subscription.currentPeriodStart + 1)))
        let seconds = now.stripeSeconds
        if subscription.status == "past_due" {
            subscription.nextRetry = min(subscription.nextRetry ?? seconds, seconds)
        } else {
            subscription.currentPeriodEnd = min(subscription.currentPeriodEnd, seconds)
            if let trialEnd = subscription.trialEnd, trialEnd > seconds { subscription.trialEnd = seconds }
        }
        stripePut(subscription)
        try stripeStep(id, at: now)
        return try stripeFind(StripeSubscriptionRecord.self, id)
    }

    /// The top-level fields of `before` that differ in `after`, with their old values: an update event's
    /// `previous_attributes`.
    static func changed(_ before: StripeValue, _ after: StripeValue) -> StripeValue {
        guard case .object(let old) = before, case .object(let new) = after else { return [:] }
        return .object(old.filter { key, value in new[key] != value })
    }

    // MARK: API

    /// `POST /v1/subscriptions/{id}`: `cancel_at_period_end`, a new price (`items[0][id]` + `items[0][price]`,
    /// applied at once and billed from the next period, no proration), `metadata` (an empty value removes a key).
    func stripeUpdateSubscription(_ id: String, _ form: StripeForm, at now: Date) throws(StripeError)
        -> StripeSubscriptionRecord
    {
        try form.allow(["cancel_at_period_end", "items", "metadata", "proration_behavior", "cancellation_details"])
        var subscription = try stripeFind(StripeSubscriptionRecord.self, id)
        guard !subscription.isOver else {
            throw StripeError.invalid(
                "A canceled subscription can only update its cancellation_details and metadata.")
        }
        let before = subscription.json
        if let cancel = try form.bool("cancel_at_period_end") {
            subscription.cancelAtPeriodEnd = cancel
            subscription.cancelAt = cancel ? subscription.currentPeriodEnd : nil
            subscription.canceledAt = cancel ? now.stripeSeconds : nil
            subscription.cancellationReason = cancel ? "cancellation_requested" : nil
        }
        if let priceId = form["items[0][price]"] {
            if let item = form["items[0][id]"], item != subscription.itemId {
                throw StripeError.missing("subscription_item", item, param: "items[0][id]")
            }
            let price = try stripeFind(StripePriceRecord.self, priceId, param: "items[0][price]")
            guard price.isRecurring, price.active else {
                throw StripeError.invalid(
                    "The price specified is not an active recurring price.", param: "items[0][price]")
            }
            subscription.price = price
        }
        for (key, value) in form.map("metadata") {
            subscription.metadata[key] = value.isEmpty ? nil : value
        }
        stripePut(subscription)
        let previous = Self.changed(before, subscription.json)
        if previous != [:] {
            stripeEmit("customer.subscription.updated", subscription.json, previous: previous, at: now)
        }
        return subscription
    }

    /// `DELETE /v1/subscriptions/{id}`: cancelled now.
    func stripeCancelSubscription(_ id: String, at now: Date) throws(StripeError) -> StripeSubscriptionRecord {
        var subscription = try stripeFind(StripeSubscriptionRecord.self, id)
        guard !subscription.isOver else {
            throw StripeError.invalid(
                "A canceled subscription can only update its cancellation_details and metadata.")
        }
        subscription.canceledAt = now.stripeSeconds
        stripeEnd(&subscription, reason: "cancellation_requested", at: now)
        stripeEmit("customer.subscription.deleted", subscription.json, at: now)
        return subscription
    }
}
