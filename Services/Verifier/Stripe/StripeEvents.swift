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
            if let bought = try await purchase(paidBy: intent, appID: appID, key: key, toldAt: observed) {
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
            guard let intentID,
                let bought = try await purchase(paidBy: intentID, appID: appID, key: key, toldAt: observed)
            else {
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

    /// The state of subscription `id` as Stripe has it now, and its latest invoice's period when paid: for a
    /// Checkout Session, its first period; for the reconciler (`proofKind` ``ProofKind/storeStatus``), the latest.
    func subscriptionFacts(_ id: String, observed: Date, key: String, proofKind: ProofKind = .notification)
        async throws(VerifierError) -> NotificationFacts
    {
        let subscription = try await client.subscription(id, key: key)
        var facts = NotificationFacts(renewals: [StripeFacts.renewal(of: subscription, observedAt: observed)])
        if let invoiceID = subscription.latestInvoice?.id {
            let invoice = try await client.invoice(invoiceID, key: key)
            if let period = StripeFacts.subscriptionPeriod(invoice: invoice, subscription: subscription) {
                facts.facts = [Self.fact(period, proof: invoice.id, kind: proofKind)]
            }
        }
        return facts
    }

    /// How long after Stripe told of a refund or dispute it waits for the purchase it takes back: Stripe does not
    /// order its deliveries, and retries an event's for up to three days, so the purchase's own event may come later.
    static let purchaseWait: TimeInterval = 3 * 86_400

    /// The recorded purchase a PaymentIntent paid: a subscription period through the invoice it paid
    /// (`invoice_payments`), else the one-time purchase that is the PaymentIntent itself. `nil` when this app never
    /// sold it (nothing was granted, so nothing is taken back).
    ///
    /// A purchase this app sold (Shopkeeper's metadata on the PaymentIntent or the invoice's subscription) but not
    /// recorded yet is not lost news: ``VerifierError/applyPending(reason:)`` leaves the refund or dispute pending in
    /// the notification inbox, retried with backoff (and by Stripe) until the purchase is recorded, for
    /// ``purchaseWait`` after `toldAt`. Then the revocation is recorded like any other and kept
    /// (``TransactionRepository/record(_:appID:presenter:attempt:)``), so the purchase ends up revoked once.
    private func purchase(paidBy intentID: String, appID: String, key: String, toldAt: Date)
        async throws(VerifierError) -> StoreTransaction?
    {
        let payments = try await client.invoicePayments(paymentIntent: intentID, key: key)
        let invoiceIDs = payments.data.map(\.invoice.id)
        let ids = invoiceIDs + [intentID]
        let recorded: [StoreTransaction]
        do {
            recorded = try await transactions.transactions(appID: appID, store: .stripe, ids: ids)
        } catch {
            throw .applyPending(reason: "the refunded purchase could not be read")
        }
        if let bought = ids.lazy.compactMap({ id in recorded.first { $0.transactionID == id } }).first {
            return bought
        }
        guard Date().timeIntervalSince(toldAt) < Self.purchaseWait,
            try await soldHere(paidBy: intentID, invoiceIDs: invoiceIDs, appID: appID, key: key)
        else { return nil }
        throw .applyPending(reason: "the purchase it takes back is not recorded yet")
    }

    /// Whether `appID` sold what the PaymentIntent paid, by the metadata Shopkeeper's checkout set: the
    /// subscription's (on the invoice) for an invoice, the PaymentIntent's own for a one-time purchase.
    private func soldHere(paidBy intentID: String, invoiceIDs: [String], appID: String, key: String)
        async throws(VerifierError) -> Bool
    {
        if let invoiceID = invoiceIDs.first {
            let invoice = try await client.invoice(invoiceID, key: key)
            return invoice.parent?.subscriptionDetails?.metadata?[StripeFacts.appIDKey] == appID
        }
        return try await client.paymentIntent(intentID, key: key).metadata?[StripeFacts.appIDKey] == appID
    }

    private static func fact(_ transaction: StoreTransaction, proof: String, kind: ProofKind = .notification)
        -> VerifiedFact
    {
        VerifiedFact(transaction: transaction, proofKind: kind, rawProof: proof)
    }
}
