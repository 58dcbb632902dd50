import Foundation
import ShopkeeperTestSupport
import Testing

/// Stripe's webhooks get lost too: the sandbox's Stripe keeps every event after the first purchase undelivered
/// (held), and its clock renews the subscription in silence. The verifier's reconciliation job notices the period
/// that ended with no news, reads the subscription and its latest invoice from Stripe's API, and brings the
/// customer up to date.
@Suite struct StripeReconciliationEndToEndTests {
    /// A month of the sandbox's Stripe lasts about eight seconds; the reconciler looks every 200 ms at periods that
    /// ended two seconds ago or more, and asks again after 300 ms, 600 ms, ...
    static let verifierEnvironment = [
        "SHOPKEEPER_RECONCILE_INTERVAL_SECONDS": "0.2", "SHOPKEEPER_RECONCILE_AFTER_SECONDS": "2",
        "SHOPKEEPER_RECONCILE_BACKOFF_SECONDS": "0.3",
    ]
    static let sandboxEnvironment = ["SHOPKEEPER_SANDBOX_TIME_SCALE": "324000", "SHOPKEEPER_SANDBOX_TICK_MS": "100"]

    @Test func aRenewalStripeNeverToldIsFoundByAskingStripe() async throws {
        try await StripeWorld.run(
            verifierEnvironment: Self.verifierEnvironment, sandboxEnvironment: Self.sandboxEnvironment
        ) { stripe in
            let held = try await stripe.world.sandbox(.PUT, "/sandbox/notifications", ["hold": true])
            #expect(held.status == 200, "\(held.json)")
            let paid = try await stripe.buy("ana", product: "club_monthly")
            let subscription = try #require(paid["subscription"] as? String, "\(paid.json)")
            // Only the purchase is told; every later event stays held.
            let completed = try #require(
                try await ShopkeeperTestSupport.eventually({
                    try await stripe.delivery(ofType: "checkout.session.completed")
                }) { $0 != nil }?["id"] as? String)
            try await stripe.tell(completed)

            // Renewed at Stripe, unheard: the reconciler finds each later period by asking.
            let renewed = try await ShopkeeperTestSupport.eventually(
                timeout: .seconds(60),
                {
                    try await stripe.count(
                        "SELECT count(*)::int FROM verifier.transactions WHERE store = 'stripe'"
                            + " AND original_transaction_id = '\(subscription)' AND proof_kind = 'store_status'"
                            + " AND apply_state = 'applied'")
                }
            ) { $0 >= 1 }
            #expect(renewed >= 1)
            let info = try await stripe.customer("ana") {
                StripeWorld.active($0, "club") && StripeWorld.subscription($0)["state"] as? String == "active"
            }
            #expect(StripeWorld.active(info, "club"), "\(info)")
            #expect(
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.reconciliations WHERE store = 'stripe'"
                        + " AND original_transaction_id = '\(subscription)' AND outcome LIKE 'checked%'") == 1)
        }
    }
}
