import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// Stripe objects, as read back from Stripe's API, in the verifier's one shape (``StoreTransaction``,
/// ``SubscriptionRenewalFacts``). Pure: the objects in, the facts out; what to read for an event is
/// ``StripeEvents``'s question.
///
/// Transaction ids: a one-time purchase is its PaymentIntent (`pi_...`); a subscription period is the invoice that
/// paid it (`in_...`), its original transaction the subscription (`sub_...`), so the Checkout Session of a new
/// subscription and the `invoice.paid` of its first invoice record the same transaction.
enum StripeFacts {
    /// The metadata keys Shopkeeper sets on what it creates at Stripe (the session, its PaymentIntent or
    /// subscription).
    static let appIDKey = "app_id"
    static let appUserIDKey = "app_user_id"
    static let productIDKey = "product_id"

    /// The environment of an object of this mode.
    static func environment(livemode: Bool) -> StoreEnvironment { livemode ? .production : .sandbox }

    /// The customer a Checkout Session was created for: its `client_reference_id`, else its metadata.
    static func appUserID(of session: StripeCheckoutSession) -> String? {
        session.clientReferenceID ?? session.metadata?[appUserIDKey]
    }

    /// A paid one-time purchase: the session (with its line items) and its PaymentIntent, both read from Stripe.
    /// `nil` when Stripe does not confirm a payment (not paid, not succeeded, no price).
    static func oneTimePurchase(session: StripeCheckoutSession, intent: StripePaymentIntent) -> StoreTransaction? {
        guard session.mode == "payment", session.paymentStatus == "paid", intent.status == "succeeded",
            session.paymentIntent?.id == intent.id, intent.livemode == session.livemode,
            let item = session.lineItems?.data.first, let price = item.price?.id
        else { return nil }
        let purchased = Date(timeIntervalSince1970: TimeInterval(intent.created))
        return StoreTransaction(
            store: .stripe, environment: environment(livemode: intent.livemode), transactionID: intent.id,
            originalTransactionID: intent.id, storeProductID: price, type: nil, quantity: max(1, item.quantity ?? 1),
            purchaseDate: purchased, originalPurchaseDate: purchased,
            priceMilliunits: milliunits(intent.amountReceived ?? intent.amount, currency: intent.currency),
            currency: intent.currency.uppercased())
    }

    /// A subscription period an invoice paid. `nil` unless Stripe says the invoice is paid and bills `subscription`.
    static func subscriptionPeriod(invoice: StripeInvoice, subscription: StripeSubscription) -> StoreTransaction? {
        guard invoice.status == "paid", invoice.subscriptionID == subscription.id,
            let item = subscription.items.data.first
        else { return nil }
        // The line of the subscription's price (a proration line bills a part of a period); the first otherwise.
        let line =
            invoice.lines.data.first { $0.pricing?.priceDetails?.price?.id == item.price.id }
            ?? invoice.lines.data.first
        guard let line else { return nil }
        let started = Date(timeIntervalSince1970: TimeInterval(subscription.startDate ?? subscription.created))
        return StoreTransaction(
            store: .stripe, environment: environment(livemode: invoice.livemode), transactionID: invoice.id,
            originalTransactionID: subscription.id,
            storeProductID: line.pricing?.priceDetails?.price?.id ?? item.price.id, type: .autoRenewable,
            quantity: 1, purchaseDate: Date(timeIntervalSince1970: TimeInterval(line.period.start)),
            originalPurchaseDate: started, expiresDate: Date(timeIntervalSince1970: TimeInterval(line.period.end)),
            priceMilliunits: milliunits(invoice.amountPaid, currency: invoice.currency),
            currency: invoice.currency.uppercased())
    }

    /// Where a subscription stands, as the subscriptions service models it: `past_due` is Stripe retrying a failed
    /// payment (billing retry, the period over, out of service as Apple's and Google's billing retry);
    /// `unpaid` is retries given up (still billing, not in service: Stripe documents that access is revoked then,
    /// with no grace); `cancel_at_period_end` turns auto-renewal off; `canceled` and `incomplete_expired` have ended,
    /// and the facts are dated at Stripe's `ended_at`, whatever event they were read for: the subscriptions service
    /// ends a period at the facts' `observedAt` when they say it is over, so an immediate cancel cuts the period at
    /// `ended_at`, and an older event read after the end (its subscription canceled by then) does not end it at the
    /// older event's date. An ended subscription is final at Stripe, so no later news is outdated by that date.
    static func renewal(of subscription: StripeSubscription, observedAt: Date) -> SubscriptionRenewalFacts {
        var observedAt = observedAt
        if ["canceled", "incomplete_expired"].contains(subscription.status), let ended = subscription.endedAt {
            observedAt = Date(timeIntervalSince1970: TimeInterval(ended))
        }
        var renewal = SubscriptionRenewalFacts(
            store: .stripe, originalTransactionID: subscription.id, observedAt: observedAt,
            willRenew: !subscription.cancelAtPeriodEnd && subscription.cancelAt == nil)
        switch subscription.status {
        case "active", "trialing":
            renewal.periodEnded = false
            renewal.isInBillingRetry = false
            renewal.isPaused = false
            if renewal.willRenew == false { renewal.expirationReason = "voluntary" }
        case "past_due":
            renewal.isInBillingRetry = true
            renewal.periodEnded = true
        case "unpaid":
            renewal.isInBillingRetry = false
            renewal.periodEnded = true
            renewal.expirationReason = "billing_error"
        case "paused":
            renewal.isPaused = true
            renewal.periodEnded = true
        case "canceled", "incomplete_expired":
            renewal.willRenew = false
            renewal.isInBillingRetry = false
            renewal.periodEnded = true
            renewal.expirationReason =
                subscription.cancelAtPeriodEnd || subscription.canceledAt != nil
                ? "voluntary" : "billing_error"
        default:
            break
        }
        return renewal
    }

    /// `transaction` revoked at `date` (a full refund, a dispute opened or lost).
    static func revoked(_ transaction: StoreTransaction, at date: Date) -> StoreTransaction {
        var revoked = transaction
        if revoked.revocationDate == nil {
            revoked.revocationDate = date.wholeSeconds
            revoked.revocationReason = .other
        }
        return revoked
    }

    /// `transaction` back in force: a dispute won reverses the revocation its opening recorded.
    static func reinstated(_ transaction: StoreTransaction, at date: Date) -> StoreTransaction {
        var reinstated = transaction
        reinstated.revocationReversedAt = date.wholeSeconds
        return reinstated
    }

    /// Currencies whose Stripe amounts are whole units (Stripe's "zero-decimal currencies").
    static let zeroDecimal: Set<String> = [
        "bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv", "xaf", "xof", "xpf",
    ]
    /// Currencies whose Stripe amounts are thousandths (Stripe's "three-decimal currencies").
    static let threeDecimal: Set<String> = ["bhd", "jod", "kwd", "omr", "tnd"]

    /// A Stripe amount (in the currency's smallest unit, as Stripe counts it) in thousandths of the currency.
    static func milliunits(_ amount: Int64, currency: String) -> Int64 {
        let code = currency.lowercased()
        if zeroDecimal.contains(code) { return amount * 1000 }
        if threeDecimal.contains(code) { return amount }
        return amount * 10
    }
}
