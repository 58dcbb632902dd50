import Foundation
import ShopkeeperModels
import ShopkeeperStores
import Testing

@testable import Verifier

/// Stripe's objects (its own fixtures, with the fields a case needs changed) as the verifier's facts.
@Suite struct StripeFactsTests {
    static func decode<T: Decodable>(_ type: T.Type, _ json: String, _ changes: [String: Any]) throws -> T {
        try JSONDecoder().decode(type, from: try StripeFixtures.object(json, changing: changes))
    }

    static func paidSession(mode: String = "payment") throws -> StripeCheckoutSession {
        try decode(
            StripeCheckoutSession.self, StripeFixtures.checkoutSession,
            [
                "id": "cs_test_1", "mode": mode, "status": "complete", "payment_status": "paid",
                "payment_intent": "pi_1", "client_reference_id": "user_81", "livemode": false,
                "line_items": [
                    "object": "list", "has_more": false,
                    "data": [["id": "li_1", "object": "item", "price": ["id": "price_garden_extra"], "quantity": 2]],
                ],
            ])
    }

    static func succeededIntent(_ changes: [String: Any] = [:]) throws -> StripePaymentIntent {
        try decode(
            StripePaymentIntent.self, StripeFixtures.paymentIntent,
            [
                "id": "pi_1", "status": "succeeded", "amount": 299, "amount_received": 299, "currency": "eur",
                "created": 1_764_000_000, "livemode": false,
            ].merging(changes) { _, new in new })
    }

    @Test func aPaidCheckoutIsAOneTimePurchaseIdentifiedByItsPaymentIntent() throws {
        let purchase = try #require(
            StripeFacts.oneTimePurchase(session: try Self.paidSession(), intent: try Self.succeededIntent()))
        #expect(purchase.store == .stripe)
        #expect(purchase.environment == .sandbox)
        #expect(purchase.transactionID == "pi_1")
        #expect(purchase.originalTransactionID == "pi_1")
        #expect(purchase.storeProductID == "price_garden_extra")
        #expect(purchase.quantity == 2)
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_764_000_000))
        #expect(purchase.priceMilliunits == 2990)
        #expect(purchase.currency == "EUR")
        #expect(StripeFacts.appUserID(of: try Self.paidSession()) == "user_81")
    }

    /// What Stripe does not confirm grants nothing: an unpaid session, a PaymentIntent that did not succeed or is
    /// another one, a subscription session.
    @Test func whatStripeDoesNotConfirmIsNoPurchase() throws {
        var unpaid = try Self.paidSession()
        unpaid.paymentStatus = "unpaid"
        #expect(StripeFacts.oneTimePurchase(session: unpaid, intent: try Self.succeededIntent()) == nil)
        let pending = try Self.succeededIntent(["status": "processing"])
        #expect(StripeFacts.oneTimePurchase(session: try Self.paidSession(), intent: pending) == nil)
        let other = try Self.succeededIntent(["id": "pi_other"])
        #expect(StripeFacts.oneTimePurchase(session: try Self.paidSession(), intent: other) == nil)
        let live = try Self.succeededIntent(["livemode": true])
        #expect(StripeFacts.oneTimePurchase(session: try Self.paidSession(), intent: live) == nil)
        #expect(
            StripeFacts.oneTimePurchase(
                session: try Self.paidSession(mode: "subscription"), intent: try Self.succeededIntent()) == nil)
    }

    static func subscription(_ changes: [String: Any] = [:]) throws -> StripeSubscription {
        try decode(
            StripeSubscription.self, StripeFixtures.subscription,
            [
                "id": "sub_1", "status": "active", "cancel_at_period_end": false, "cancel_at": NSNull(),
                "canceled_at": NSNull(), "ended_at": NSNull(), "start_date": 1_764_000_000, "latest_invoice": "in_1",
                "metadata": ["app_user_id": "user_81", "app_id": "app_1"],
                "items.data.0.price.id": "price_club_monthly", "items.data.0.current_period_start": 1_764_000_000,
                "items.data.0.current_period_end": 1_766_592_000,
            ].merging(changes) { _, new in new })
    }

    static func paidInvoice(_ changes: [String: Any] = [:]) throws -> StripeInvoice {
        try decode(
            StripeInvoice.self, StripeFixtures.invoice,
            [
                "id": "in_1", "status": "paid", "currency": "usd", "amount_paid": 499, "livemode": false,
                "parent": ["type": "subscription_details", "subscription_details": ["subscription": "sub_1"]],
                "lines.data.0.period": ["start": 1_764_000_000, "end": 1_766_592_000],
                "lines.data.0.pricing": ["type": "price_details", "price_details": ["price": "price_club_monthly"]],
            ].merging(changes) { _, new in new })
    }

    @Test func aPaidInvoiceIsOnePeriodOfItsSubscription() throws {
        let period = try #require(
            StripeFacts.subscriptionPeriod(invoice: try Self.paidInvoice(), subscription: try Self.subscription()))
        #expect(period.transactionID == "in_1")
        #expect(period.originalTransactionID == "sub_1")
        #expect(period.storeProductID == "price_club_monthly")
        #expect(period.type == .autoRenewable)
        #expect(period.purchaseDate == Date(timeIntervalSince1970: 1_764_000_000))
        #expect(period.expiresDate == Date(timeIntervalSince1970: 1_766_592_000))
        #expect(period.originalPurchaseDate == Date(timeIntervalSince1970: 1_764_000_000))
        #expect(period.priceMilliunits == 4990)
        #expect(period.currency == "USD")

        let open = try Self.paidInvoice(["status": "open"])
        #expect(StripeFacts.subscriptionPeriod(invoice: open, subscription: try Self.subscription()) == nil)
        let another = try Self.paidInvoice(["parent.subscription_details.subscription": "sub_2"])
        #expect(StripeFacts.subscriptionPeriod(invoice: another, subscription: try Self.subscription()) == nil)
    }

    @Test func subscriptionStatesAsTheSubscriptionsServiceModelsThem() throws {
        let observed = Date(timeIntervalSince1970: 1_765_000_000)
        let active = StripeFacts.renewal(of: try Self.subscription(), observedAt: observed)
        #expect(active.willRenew == true)
        #expect(active.periodEnded == false)
        #expect(active.isInBillingRetry == false)

        let cancelling = StripeFacts.renewal(
            of: try Self.subscription(["cancel_at_period_end": true]), observedAt: observed)
        #expect(cancelling.willRenew == false)
        #expect(cancelling.periodEnded == false)
        #expect(cancelling.expirationReason == "voluntary")

        let pastDue = StripeFacts.renewal(of: try Self.subscription(["status": "past_due"]), observedAt: observed)
        #expect(pastDue.isInBillingRetry == true)
        #expect(pastDue.periodEnded == true)

        let ended = StripeFacts.renewal(
            of: try Self.subscription(["status": "canceled", "canceled_at": 1_765_000_000, "ended_at": 1_765_000_000]),
            observedAt: observed)
        #expect(ended.willRenew == false)
        #expect(ended.periodEnded == true)
        #expect(ended.expirationReason == "voluntary")
        #expect(ended.originalTransactionID == "sub_1")
        #expect(ended.store == .stripe)

        // Ended at once: the period ends at `ended_at`, not when the event was made (before or after).
        let immediate = StripeFacts.renewal(
            of: try Self.subscription(["status": "canceled", "canceled_at": 1_764_900_000, "ended_at": 1_764_900_000]),
            observedAt: observed)
        #expect(immediate.observedAt == Date(timeIntervalSince1970: 1_764_900_000))
        #expect(immediate.periodEnded == true)
        let readLater = StripeFacts.renewal(
            of: try Self.subscription(["status": "canceled", "canceled_at": 1_765_100_000, "ended_at": 1_765_100_000]),
            observedAt: observed)
        #expect(readLater.observedAt == Date(timeIntervalSince1970: 1_765_100_000))

        // Unpaid: Stripe gave up retrying; out of service at once (no grace, no billing retry), still renewing.
        let unpaid = StripeFacts.renewal(of: try Self.subscription(["status": "unpaid"]), observedAt: observed)
        #expect(unpaid.periodEnded == true)
        #expect(unpaid.isInBillingRetry == false)
        #expect(unpaid.gracePeriodExpiresDate == nil)
        #expect(unpaid.expirationReason == "billing_error")
        #expect(unpaid.observedAt == observed)
    }

    @Test func refundsAndDisputesRevokeOnceAndAWonDisputeReinstates() throws {
        let purchase = try #require(
            StripeFacts.oneTimePurchase(session: try Self.paidSession(), intent: try Self.succeededIntent()))
        let refunded = StripeFacts.revoked(purchase, at: Date(timeIntervalSince1970: 1_765_000_000.7))
        #expect(refunded.revocationDate == Date(timeIntervalSince1970: 1_765_000_000))
        #expect(refunded.revocationReason == .other)
        // Revoked again later (a dispute after the refund): the first revocation stands.
        let again = StripeFacts.revoked(refunded, at: Date(timeIntervalSince1970: 1_766_000_000))
        #expect(again.revocationDate == refunded.revocationDate)
        let won = StripeFacts.reinstated(refunded, at: Date(timeIntervalSince1970: 1_767_000_000))
        #expect(won.revocationReversedAt == Date(timeIntervalSince1970: 1_767_000_000))
    }

    @Test func amountsInEachCurrencysOwnUnits() {
        #expect(StripeFacts.milliunits(299, currency: "eur") == 2990)
        #expect(StripeFacts.milliunits(500, currency: "JPY") == 500_000)
        #expect(StripeFacts.milliunits(1500, currency: "kwd") == 1500)
    }
}
