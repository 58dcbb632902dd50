import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// What one Stripe event stands for, read back from Stripe's API: the event itself by its id (a forged id is not
/// found, a verdict), then the objects it names, as Stripe has them now. The webhook's body is never trusted beyond
/// the event id it names.
struct StripeEvents: Sendable {
    let client: StripeClient
    let transactions: any TransactionRepository

    /// The facts of one event and the customer they are for.
    struct Outcome: Sendable {
        var facts = NotificationFacts()
        /// The customer a purchase is for (a Checkout Session's, a subscription's metadata); `nil` for news about a
        /// purchase already owned (a refund, a dispute, a subscription's state), applied to its owner.
        var appUserID: String?
        /// The event's type as Stripe has it.
        var type: String
    }

    /// The event types whose objects are read and turned into facts; any other is recorded and ignored.
    static let handledTypes: Set<String> = [
        "checkout.session.completed", "checkout.session.async_payment_succeeded", "invoice.paid",
        "invoice.payment_failed", "customer.subscription.updated", "customer.subscription.deleted",
        "charge.refunded", "charge.dispute.created", "charge.dispute.closed",
    ]

    /// Reads `eventID` and its objects with the app's `key` and maps them.
    func outcome(eventID: String, appID: String, key: String) async throws(VerifierError) -> Outcome {
        let event = try await client.event(eventID, key: key)
        var outcome = Outcome(type: event.type)
        guard Self.handledTypes.contains(event.type), let objectID = event.data.object.id else { return outcome }
        let observed = Date(timeIntervalSince1970: TimeInterval(event.created))
        switch event.type {
        case "checkout.session.completed", "checkout.session.async_payment_succeeded":
            let session = try await client.checkoutSession(objectID, key: key)
            outcome.appUserID = StripeFacts.appUserID(of: session)
            if session.mode == "subscription", let subscriptionID = session.subscription?.id {
                outcome.facts = try await subscriptionFacts(subscriptionID, observed: observed, key: key)
            } else if session.mode == "payment", let intentID = session.paymentIntent?.id {
                let intent = try await client.paymentIntent(intentID, key: key)
                if let purchase = StripeFacts.oneTimePurchase(session: session, intent: intent) {
                    outcome.facts.facts = [Self.fact(purchase, proof: session.id)]
                }
            }
        case "invoice.paid":
            let invoice = try await client.invoice(objectID, key: key)
            guard let subscriptionID = invoice.subscriptionID else { return outcome }
            let subscription = try await client.subscription(subscriptionID, key: key)
            outcome.appUserID =
                subscription.metadata?[StripeFacts.appUserIDKey]
                ?? invoice.parent?.subscriptionDetails?.metadata?[StripeFacts.appUserIDKey]
            if let period = StripeFacts.subscriptionPeriod(invoice: invoice, subscription: subscription) {
                outcome.facts.facts = [Self.fact(period, proof: invoice.id)]
            }
            outcome.facts.renewals = [StripeFacts.renewal(of: subscription, observedAt: observed)]
        case "invoice.payment_failed":
            let invoice = try await client.invoice(objectID, key: key)
            guard let subscriptionID = invoice.subscriptionID else { return outcome }
            let subscription = try await client.subscription(subscriptionID, key: key)
            outcome.facts.renewals = [StripeFacts.renewal(of: subscription, observedAt: observed)]
        case "customer.subscription.updated", "customer.subscription.deleted":
            let subscription = try await client.subscription(objectID, key: key)
            outcome.facts.renewals = [StripeFacts.renewal(of: subscription, observedAt: observed)]
        case "charge.refunded":
            let charge = try await client.charge(objectID, key: key)
            // Shopkeeper takes back whole purchases only: a partial refund leaves the purchase in force.
            guard charge.refunded, let intent = charge.paymentIntent?.id else { return outcome }
            if let bought = try await purchase(paidBy: intent, appID: appID, key: key) {
                outcome.facts.facts = [Self.fact(StripeFacts.revoked(bought, at: observed), proof: charge.id)]
            }
        case "charge.dispute.created", "charge.dispute.closed":
            let dispute = try await client.dispute(objectID, key: key)
            let intentID: String?
            if let id = dispute.paymentIntent?.id {
                intentID = id
            } else {
                intentID = try await client.charge(dispute.charge.id, key: key).paymentIntent?.id
            }
            guard let intentID, let bought = try await purchase(paidBy: intentID, appID: appID, key: key) else {
                return outcome
            }
            let opened = Date(timeIntervalSince1970: TimeInterval(dispute.created))
            switch dispute.status {
            case "won", "warning_closed":
                // Won (or an inquiry closed without a chargeback): the purchase is in force again.
                outcome.facts.facts = [Self.fact(StripeFacts.reinstated(bought, at: observed), proof: dispute.id)]
            case let status where status.hasPrefix("warning_"):
                // An inquiry: no money is withdrawn yet, nothing is taken back.
                break
            default:
                outcome.facts.facts = [Self.fact(StripeFacts.revoked(bought, at: opened), proof: dispute.id)]
            }
        default:
            break
        }
        return outcome
    }

    /// The first period and the state of a subscription a Checkout Session started.
    private func subscriptionFacts(_ id: String, observed: Date, key: String) async throws(VerifierError)
        -> NotificationFacts
    {
        let subscription = try await client.subscription(id, key: key)
        var facts = NotificationFacts(renewals: [StripeFacts.renewal(of: subscription, observedAt: observed)])
        if let invoiceID = subscription.latestInvoice?.id {
            let invoice = try await client.invoice(invoiceID, key: key)
            if let period = StripeFacts.subscriptionPeriod(invoice: invoice, subscription: subscription) {
                facts.facts = [Self.fact(period, proof: invoice.id)]
            }
        }
        return facts
    }

    /// The recorded purchase a PaymentIntent paid: a subscription period through the invoice it paid
    /// (`invoice_payments`), else the one-time purchase that is the PaymentIntent itself. `nil` when none is recorded
    /// here (nothing was granted, so nothing is taken back).
    private func purchase(paidBy intentID: String, appID: String, key: String) async throws(VerifierError)
        -> StoreTransaction?
    {
        let payments = try await client.invoicePayments(paymentIntent: intentID, key: key)
        let ids = payments.data.map(\.invoice.id) + [intentID]
        let recorded: [StoreTransaction]
        do {
            recorded = try await transactions.transactions(appID: appID, store: .stripe, ids: ids)
        } catch {
            throw .applyPending(reason: "the refunded purchase could not be read")
        }
        return ids.lazy.compactMap { id in recorded.first { $0.transactionID == id } }.first
    }

    private static func fact(_ transaction: StoreTransaction, proof: String) -> VerifiedFact {
        VerifiedFact(transaction: transaction, proofKind: .notification, rawProof: proof)
    }
}
