import Foundation
import ShopkeeperTestSupport
import Testing

/// A Stripe subscription's life at the sandbox store, told by its signed webhooks through the real gateway and
/// verifier: what the customer owns follows the subscription.
@Suite struct StripeSubscriptionEndToEndTests {
    /// The subscription `user` bought, once entitlements has it.
    func subscribe(_ stripe: StripeWorld, _ user: String, card: String) async throws -> String {
        let paid = try await stripe.buy(user, product: "club_monthly", card: card)
        #expect(paid.status == 200, "\(paid.json)")
        let subscription = try #require(paid["subscription"] as? String)
        let info = try await stripe.customer(user) { StripeWorld.active($0, "club") }
        #expect(StripeWorld.active(info, "club"), "\(info)")
        return subscription
    }

    /// The first invoice grants; `advance` renews and extends; with a card failing at renewal the subscription goes
    /// past due, and when Stripe gives up retrying it ends.
    @Test func firstInvoiceGrantsRenewalExtendsAFailingCardGoesPastDueAndTheEndEndsIt() async throws {
        try await StripeWorld.run { stripe in
            let subscription = try await subscribe(stripe, "ana", card: StripeWorld.paying)
            let first = StripeWorld.subscription(try await stripe.world.customerInfo("ana"))
            let firstEnd = first["expires_at"] as? String
            #expect(firstEnd != nil, "\(first)")

            let extended = try await stripe.renew(subscription, for: "ana", endingOtherThan: firstEnd)
            #expect(StripeWorld.subscription(extended)["expires_at"] as? String != firstEnd, "\(extended)")
            #expect(StripeWorld.active(extended, "club"))
            let periods = try await ShopkeeperTestSupport.eventually({
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.transactions WHERE store = 'stripe'"
                        + " AND original_transaction_id = '\(subscription)' AND apply_state = 'applied'")
            }) { $0 == 2 }
            #expect(periods == 2)

            let customer = try #require(
                try await stripe.stripe(.GET, "/v1/subscriptions/\(subscription)")["customer"] as? String)
            let switched = try await stripe.world.sandbox(
                .POST, "/sandbox/stripe/customers/\(customer)/card", ["card": StripeWorld.failingLater])
            #expect(switched.status == 200, "\(switched.json)")
            let failed = try await stripe.world.sandbox(.POST, "/sandbox/stripe/subscriptions/\(subscription)/advance")
            #expect(failed["status"] as? String == "past_due", "\(failed.json)")
            let pastDue = try await stripe.customer("ana") {
                StripeWorld.subscription($0)["state"] as? String == "billing_retry"
            }
            #expect(StripeWorld.subscription(pastDue)["state"] as? String == "billing_retry", "\(pastDue)")

            // Stripe retries three more times, then cancels.
            var status = failed["status"] as? String
            for _ in 0..<4 where status != "canceled" {
                status =
                    try await stripe.world.sandbox(
                        .POST, "/sandbox/stripe/subscriptions/\(subscription)/advance")["status"] as? String
            }
            #expect(status == "canceled")
            let ended = try await stripe.customer("ana") {
                StripeWorld.subscription($0)["state"] as? String == "expired" && !StripeWorld.active($0, "club")
            }
            #expect(!StripeWorld.active(ended, "club"), "\(ended)")
            #expect(StripeWorld.subscription(ended)["state"] as? String == "expired", "\(ended)")
        }
    }

    /// `POST /v1/customers/{user}/subscriptions/{id}/cancel` sets cancel at period end at Stripe: still in service,
    /// no longer renewing; another customer's is not found.
    @Test func cancelSetsCancelAtPeriodEnd() async throws {
        try await StripeWorld.run { stripe in
            let subscription = try await subscribe(stripe, "ana", card: StripeWorld.paying)
            let cancelled = try await stripe.world.verifier(
                .POST, "/v1/customers/ana/subscriptions/\(subscription)/cancel")
            #expect(cancelled.status == 200, "\(cancelled.json)")
            #expect(cancelled["cancel_at_period_end"] as? Bool == true)
            let atStripe = try await stripe.stripe(.GET, "/v1/subscriptions/\(subscription)")
            #expect(atStripe["cancel_at_period_end"] as? Bool == true, "\(atStripe.json)")
            let info = try await stripe.customer("ana") { StripeWorld.subscription($0)["will_renew"] as? Bool == false }
            #expect(StripeWorld.subscription(info)["will_renew"] as? Bool == false, "\(info)")
            #expect(StripeWorld.active(info, "club"))

            let other = try await stripe.world.verifier(.POST, "/v1/customers/ben/subscriptions/\(subscription)/cancel")
            #expect(other.status == 404, "\(other.json)")
        }
    }
}
