import Foundation
import ShopkeeperTestSupport
import Testing

/// Stripe's money told out of order, twice, or to a verifier that dies, and many purchases at once: real gateway,
/// verifier and PostgreSQL, the sandbox store's Stripe signing and sending every webhook.
@Suite struct StripeMoneyEndToEndTests {
    /// The refund (`charge.refunded`) or dispute (`charge.dispute.created`) of a purchase told before the purchase
    /// (Stripe does not order deliveries): it is not processed as news about nothing (lost) but left pending and
    /// answered 503, and once the purchase is told it takes the purchase back, once, however often it is told again.
    /// (When the two applies cross, the refund's news finding no owner yet, the background retry applies the refund:
    /// `FactApplyStateRefundRaceTests` forces that order.)
    @Test(arguments: ["charge.refunded", "charge.dispute.created"])
    func aRefundToldBeforeItsPurchaseRevokesItOnceThePurchaseArrives(_ takenBack: String) async throws {
        try await StripeWorld.run { stripe in
            let held = try await stripe.world.sandbox(.PUT, "/sandbox/notifications", ["hold": true])
            #expect(held.status == 200, "\(held.json)")
            let paid = try await stripe.buy("ana", product: "garden_extra")
            #expect(paid.status == 200, "\(paid.json)")
            let intent = try #require(paid["payment_intent"] as? String)
            if takenBack == "charge.refunded" {
                let refund = try await stripe.stripe(.POST, "/v1/refunds", form: [("payment_intent", intent)])
                #expect(refund.status == 200, "\(refund.json)")
            } else {
                let charge = try #require(
                    try await stripe.stripe(.GET, "/v1/payment_intents/\(intent)")["latest_charge"] as? String)
                let dispute = try await stripe.world.sandbox(.POST, "/sandbox/stripe/charges/\(charge)/dispute")
                #expect(dispute.status == 200, "\(dispute.json)")
            }
            let refunded = try await eventID(stripe, takenBack)
            let completed = try await eventID(stripe, "checkout.session.completed")

            // The refund first: nothing to take back yet, and nothing taken as processed (503 to Stripe, pending).
            let early = try await stripe.tell(refunded)
            #expect(early != 200)
            try await ShopkeeperTestSupport.eventually("the early news left pending") {
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.notifications WHERE notification_id = '\(refunded)'"
                        + " AND state = 'pending' AND last_error LIKE 'apply_pending%'") == 1
            }

            // Then the purchase: granted, and the waiting refund takes it back.
            try await stripe.tell(completed)
            let revoked = try await stripe.customer("ana") {
                !StripeWorld.active($0, "garden") && $0["refund_count"] as? Int == 1
            }
            #expect(!StripeWorld.active(revoked, "garden"), "\(revoked)")
            #expect(revoked["refund_count"] as? Int == 1, "\(revoked)")
            try await stripe.notificationsSettled()
            #expect(
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.notifications WHERE store = 'stripe'"
                        + " AND notification_id IN ('\(refunded)', '\(completed)') AND state = 'processed'") == 2)

            // Told again, both of them, many times at once: nothing changes.
            for event in [refunded, completed] {
                let again = try await stripe.world.sandbox(
                    .POST, "/sandbox/notifications/\(event)/resend?times=10&concurrency=10")
                // 200 each (0: no answer within the sandbox's 5 s on a loaded machine).
                #expect((again["statuses"] as? [Int] ?? []).allSatisfy { $0 == 200 || $0 == 0 }, "\(again.json)")
            }
            try await stripe.notificationsSettled()
            let after = try await stripe.world.customerInfo("ana")
            #expect(!StripeWorld.active(after, "garden"), "\(after)")
            #expect(after["refund_count"] as? Int == 1, "\(after)")
            #expect(
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.transactions WHERE store = 'stripe' AND transaction_id = '\(intent)'"
                        + " AND app_user_id = 'ana' AND revocation_date IS NOT NULL") == 1)
        }
    }

    /// The verifier killed (SIGKILL) after recording a `checkout.session.completed` in its inbox, while it reads the
    /// event back from Stripe (the sandbox's Stripe API holding its answers): nothing is granted, and the verifier
    /// started again takes the recorded event once its lease lapses (or Stripe's retry does) and grants it, once.
    @Test func aVerifierKilledBetweenRecordingAndApplyingAnEventLosesNothing() async throws {
        try await StripeWorld.run { stripe in
            try await stripe.buy("ana", product: "garden_extra", whileReadsSuffer: ["delay_ms": 60_000])
            let completed = try await eventID(stripe, "checkout.session.completed")
            try await ShopkeeperTestSupport.eventually("the event recorded, not processed") {
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.notifications WHERE notification_id = '\(completed)'"
                        + " AND state = 'pending'") == 1
            }
            try await stripe.world.verifier.crash()
            #expect(
                try await stripe.count("SELECT count(*)::int FROM verifier.transactions WHERE store = 'stripe'") == 0)

            try await stripe.world.sandbox(.DELETE, "/sandbox/faults")
            let verifier = try stripe.world.verifier.restarted()
            try await verifier.waitUntilReady()
            // The dead request's lease (60 s) lapses first: wait for the condition, well past it.
            let info = try await ShopkeeperTestSupport.eventually(
                timeout: .seconds(180), { try await stripe.world.customerInfo("ana") }
            ) { StripeWorld.active($0, "garden") }
            #expect(StripeWorld.active(info, "garden"), "\(info)")
            try await stripe.notificationsSettled()
            #expect(
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.transactions WHERE store = 'stripe' AND app_user_id = 'ana'")
                    == 1)
            let types = try await stripe.world.eventTypes()
            #expect(types.filter { $0 == "initial_purchase" }.count == 1, "\(types)")
            _ = try? await verifier.terminate()
        }
    }

    /// A subscription cancelled at once (`DELETE /v1/subscriptions/{id}`, Stripe's immediate cancel) ends then:
    /// its period is cut to Stripe's `ended_at`, the entitlement with it.
    @Test func anImmediateCancelEndsTheSubscriptionAtStripesEndedAt() async throws {
        try await StripeWorld.run { stripe in
            let paid = try await stripe.buy("ana", product: "club_monthly")
            let subscription = try #require(paid["subscription"] as? String)
            let started = try await stripe.customer("ana") { StripeWorld.active($0, "club") }
            let periodEnd = try #require(Self.date(StripeWorld.subscription(started)["expires_at"]))

            let cancelled = try await stripe.stripe(.DELETE, "/v1/subscriptions/\(subscription)")
            #expect(cancelled["status"] as? String == "canceled", "\(cancelled.json)")
            let endedAt = try #require(cancelled["ended_at"] as? Int)
            // Every event of the subscription settled (an older one read after the cancel ends it at `ended_at` too).
            _ = try await stripe.allDelivered()
            try await stripe.notificationsSettled()
            let ended = try await stripe.customer("ana") {
                !StripeWorld.active($0, "club") && StripeWorld.subscription($0)["state"] as? String == "expired"
            }
            #expect(!StripeWorld.active(ended, "club"), "\(ended)")
            let expires = try #require(Self.date(StripeWorld.subscription(ended)["expires_at"]), "\(ended)")
            #expect(expires < periodEnd)
            #expect(expires == Date(timeIntervalSince1970: TimeInterval(endedAt)), "\(ended)")
        }
    }

    /// One customer pays twenty checkouts at once: each plot and fifteen purchases of the same consumable, each its
    /// own session. Every one is granted once and the balance is exact, even with every webhook told again.
    @Test func aBurstOfCheckoutsByOneCustomerGrantsEachOnce() async throws {
        try await StripeWorld.run(shelf: true) { stripe in
            let baskets = (1...StripeWorld.plots).map { ("plot_\($0)", 0) } + (1...15).map { ("seeds", $0) }
            let sessions = try await withThrowingTaskGroup(of: String.self) { group in
                for (product, basket) in baskets {
                    group.addTask {
                        let session = try await stripe.checkout("ana", product: product, basket: basket)
                        guard session.status == 201, let id = session["session_id"] as? String else {
                            throw ServiceProcess.Failure("checkout \(product): \(session.status) \(session.json)")
                        }
                        return id
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(sessions.count == baskets.count)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for id in sessions { group.addTask { try await stripe.pay(id, card: StripeWorld.paying).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")

            let seeds = 15 * StripeWorld.seedsPerPurchase
            let plots = (1...StripeWorld.plots).map { "plot_\($0)" }
            // Twenty webhooks at once on a small machine: a minute at most.
            let granted = try await ShopkeeperTestSupport.eventually(
                timeout: .seconds(60), { try await stripe.world.customerInfo("ana") }
            ) { info in
                Self.balance(info, "seeds") == seeds && plots.allSatisfy { StripeWorld.active(info, $0) }
            }
            #expect(Self.balance(granted, "seeds") == seeds, "\(granted)")
            #expect(plots.allSatisfy { StripeWorld.active(granted, $0) }, "\(granted)")
            _ = try await stripe.allDelivered()
            try await stripe.notificationsSettled()

            // Every checkout's webhook told again, all at once.
            let completed = try await stripe.deliveries().filter {
                $0["type"] as? String == "checkout.session.completed"
            }.compactMap { $0["id"] as? String }
            #expect(completed.count == baskets.count)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for event in completed {
                    group.addTask {
                        try await stripe.world.sandbox(
                            .POST, "/sandbox/notifications/\(event)/resend?times=3&concurrency=3")
                    }
                }
                try await group.waitForAll()
            }
            try await stripe.notificationsSettled()
            let after = try await stripe.world.customerInfo("ana")
            #expect(Self.balance(after, "seeds") == seeds, "\(after)")
            #expect(
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.transactions WHERE store = 'stripe' AND app_user_id = 'ana'"
                        + " AND apply_state = 'applied'") == baskets.count)
        }
    }

    /// The units of `product` in customer info `info`.
    static func balance(_ info: [String: Any], _ product: String) -> Int? {
        (info["consumable_balances"] as? [String: Int])?[product]
    }

    /// A customer info date (RFC 3339, whole or fractional seconds).
    static func date(_ value: Any?) -> Date? {
        guard let text = value as? String else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// The id of the sandbox's latest Stripe event of `type` (held or sent).
    func eventID(_ stripe: StripeWorld, _ type: String) async throws -> String {
        let delivery = try await ShopkeeperTestSupport.eventually({ try await stripe.delivery(ofType: type) }) {
            $0 != nil
        }
        return try #require(delivery?["id"] as? String)
    }
}
