import Foundation
import ShopkeeperTestSupport
import Testing

/// One-time purchases through the sandbox store's Stripe: Checkout made by the verifier, paid on the sandbox's page
/// with Stripe's test cards, the signed webhooks sent to the real gateway, each event read back from the sandbox's
/// Stripe API by the real verifier, and what the customer owns in entitlements.
@Suite struct StripeEndToEndTests {
    /// Checkout returns a session whose page the sandbox serves; paying it with 4242… grants `garden` to that
    /// customer, once; the same webhook 50 times at once changes nothing.
    @Test func aPaidCheckoutGrantsItsCustomerOnceEvenDeliveredFiftyTimesAtOnce() async throws {
        try await StripeWorld.run { stripe in
            let session = try await stripe.checkout("ana", product: "garden_extra")
            #expect(session.status == 201, "\(session.json)")
            let id = try #require(session["session_id"] as? String)
            let url = try #require(session["checkout_url"] as? String)
            let page = try await StoreWorld.send(.GET, url, body: nil, headers: [])
            #expect(page.status == 200)
            // The same request is the same request to Stripe (its Idempotency-Key replayed), even when Stripe
            // failed the first tries; another product is another session.
            try await stripe.world.sandbox(
                .POST, "/sandbox/faults", ["endpoint": "stripe.write", "count": 2, "status": 500])
            let again = try await stripe.checkout("ana", product: "garden_extra")
            #expect(again["session_id"] as? String == id, "\(again.json)")
            let club = try await stripe.checkout("ana", product: "club_monthly")
            #expect(club.status == 201 && club["session_id"] as? String != id, "\(club.json)")

            let paid = try await stripe.pay(id, card: StripeWorld.paying)
            #expect(paid.status == 200, "\(paid.json)")
            let info = try await stripe.customer("ana") { StripeWorld.active($0, "garden") }
            #expect(StripeWorld.active(info, "garden"), "\(info)")
            _ = try await stripe.allDelivered()
            try await stripe.notificationsSettled()
            #expect(
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.notifications WHERE store = 'stripe' AND state <> 'processed'")
                    == 0)

            let completed = try #require(try await stripe.delivery(ofType: "checkout.session.completed"))
            let event = try #require(completed["id"] as? String)
            let resent = try await stripe.world.sandbox(
                .POST, "/sandbox/notifications/\(event)/resend?times=50&concurrency=50")
            // Each duplicate is acknowledged (200), never refused nor failed; a 0 is a delivery the sandbox stopped
            // waiting for after 5 s (a machine under load), which Stripe would send again.
            let statuses = resent["statuses"] as? [Int] ?? []
            #expect(statuses.count == 50 && statuses.allSatisfy { $0 == 200 || $0 == 0 }, "\(resent.json)")
            #expect(statuses.contains(200), "\(resent.json)")
            try await stripe.notificationsSettled()
            let intent = try #require(paid["payment_intent"] as? String)
            #expect(
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.transactions WHERE store = 'stripe'"
                        + " AND transaction_id = '\(intent)' AND app_user_id = 'ana'") == 1)
            #expect(
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.notifications WHERE notification_id = '\(event)'") == 1)
            let types = try await ShopkeeperTestSupport.eventually({ try await stripe.world.eventTypes() }) {
                $0.contains("initial_purchase")
            }
            #expect(types.filter { $0 == "initial_purchase" }.count == 1, "\(types)")
            let other = try await stripe.world.customerInfo("ben")
            #expect(!StripeWorld.active(other, "garden"))
        }
    }

    /// A secret key the sandbox's Stripe refuses (401): checkout is 422 `store_credentials_rejected`, for the
    /// operator to fix.
    @Test func aKeyStripeRefusesIsReportedAsRejectedCredentials() async throws {
        try await StripeWorld.run { stripe in
            let saved = try await stripe.world.verifier(
                .PUT, "/v1/admin/stores/stripe",
                ["secret_key": "sk_test_not_the_sandbox_key", "webhook_secrets": [StripeWorld.webhookSecret]],
                kind: .secret)
            #expect(saved.status == 200, "\(saved.json)")
            let refused = try await stripe.checkout("ana", product: "garden_extra")
            #expect(refused.status == 422, "\(refused.json)")
            #expect(refused.code == "store_credentials_rejected", "\(refused.json)")
        }
    }

    /// A declined card (4000 0000 0000 0002) is a 402 at the page and grants nothing.
    @Test func aDeclinedCardGrantsNothing() async throws {
        try await StripeWorld.run { stripe in
            let declined = try await stripe.buy("ana", product: "garden_extra", card: StripeWorld.declined)
            #expect(declined.status == 402, "\(declined.json)")
            let deliveries = try await stripe.allDelivered()
            #expect(deliveries.contains { $0["type"] as? String == "payment_intent.payment_failed" })
            try await stripe.notificationsSettled()
            #expect(
                try await stripe.count("SELECT count(*)::int FROM verifier.transactions WHERE store = 'stripe'") == 0)
            #expect(!StripeWorld.active(try await stripe.world.customerInfo("ana"), "garden"))
        }
    }

    /// A body signed with another secret, a signature moved to a new timestamp, and one older than 300 s are 400 at
    /// the gateway; the sandbox's own signature is 200.
    @Test func forgedOrRetimestampedSignaturesAreRefused() async throws {
        try await StripeWorld.run { stripe in
            try await stripe.buy("ana", product: "garden_extra")
            _ = try await stripe.allDelivered()
            let delivery = try #require(try await stripe.delivery(ofType: "checkout.session.completed"))
            let body = try #require(delivery["body"] as? String)
            let now = Int(Date().timeIntervalSince1970)

            let forged = try await stripe.postWebhook(
                body, signature: StripeWorld.signature(body, secret: "whsec_not_the_apps_secret", timestamp: now))
            #expect(forged.status == 400, "\(forged.json)")
            #expect(forged.headers.first(name: "content-type") == "application/problem+json")
            let signed = StripeWorld.signature(body, secret: StripeWorld.webhookSecret, timestamp: now - 10)
            let moved = signed.replacingOccurrences(of: "t=\(now - 10)", with: "t=\(now)")
            #expect(try await stripe.postWebhook(body, signature: moved).status == 400)
            let stale = StripeWorld.signature(body, secret: StripeWorld.webhookSecret, timestamp: now - 301)
            #expect(try await stripe.postWebhook(body, signature: stale).status == 400)
            var tampered = body
            tampered.append(" ")
            #expect(try await stripe.postWebhook(tampered, signature: signed).status == 400)

            let genuine = StripeWorld.signature(body, secret: StripeWorld.webhookSecret, timestamp: now)
            #expect(try await stripe.postWebhook(body, signature: genuine).status == 200)

            // Signed with the app's secret but unknown to Stripe: answered (Stripe would retry a refusal forever),
            // read back, not found, failed, and nothing granted.
            let invented =
                #"{"id":"evt_invented_0001","object":"event","type":"checkout.session.completed","#
                + #""livemode":false,"created":\#(now),"data":{"object":{"id":"cs_invented","object":"checkout.session"}}}"#
            let answered = try await stripe.postWebhook(
                invented, signature: StripeWorld.signature(invented, secret: StripeWorld.webhookSecret, timestamp: now))
            #expect(answered.status == 200, "\(answered.json)")
            try await stripe.notificationsSettled()
            #expect(
                try await stripe.count(
                    "SELECT count(*)::int FROM verifier.notifications WHERE notification_id = 'evt_invented_0001'"
                        + " AND state = 'failed' AND last_error LIKE '%stripe_request_refused%'") == 1)
            #expect(
                try await stripe.count("SELECT count(*)::int FROM verifier.transactions WHERE store = 'stripe'") == 1)
        }
    }

    /// Stripe's API unavailable (`stripe.read` failing): the webhook is 503 and nothing granted; once Stripe is
    /// back, the sandbox's retry of the same webhook grants.
    @Test func anOutageIsA503AndTheEventIsAppliedWhenStripeIsBack() async throws {
        try await StripeWorld.run { stripe in
            try await stripe.buy("ana", product: "garden_extra", whileReadsSuffer: ["status": 503])
            let refused = try await ShopkeeperTestSupport.eventually({ try await stripe.deliveries() }) {
                $0.contains {
                    $0["type"] as? String == "checkout.session.completed" && $0["last_status"] as? Int == 503
                }
            }
            #expect(refused.contains { $0["last_status"] as? Int == 503 }, "\(refused)")
            #expect(!StripeWorld.active(try await stripe.world.customerInfo("ana"), "garden"))
            #expect(
                try await stripe.count("SELECT count(*)::int FROM verifier.transactions WHERE store = 'stripe'") == 0)

            try await stripe.world.sandbox(.DELETE, "/sandbox/faults")
            let info = try await stripe.customer("ana") { StripeWorld.active($0, "garden") }
            #expect(StripeWorld.active(info, "garden"), "\(info)")
        }
    }

    /// A full refund (`POST /v1/refunds`) revokes; a dispute revokes, counted once however often it is told; a won
    /// dispute restores.
    @Test func aRefundRevokesADisputeRevokesOnceAndAWonDisputeRestores() async throws {
        try await StripeWorld.run { stripe in
            let first = try await stripe.buy("ana", product: "garden_extra")
            let intent = try #require(first["payment_intent"] as? String)
            _ = try await stripe.customer("ana") { StripeWorld.active($0, "garden") }
            let refund = try await stripe.stripe(.POST, "/v1/refunds", form: [("payment_intent", intent)])
            #expect(refund.status == 200, "\(refund.json)")
            let refunded = try await stripe.customer("ana") { !StripeWorld.active($0, "garden") }
            #expect(!StripeWorld.active(refunded, "garden"), "\(refunded)")

            let second = try await stripe.buy("ben", product: "garden_extra")
            let paidBy = try #require(second["payment_intent"] as? String)
            _ = try await stripe.customer("ben") { StripeWorld.active($0, "garden") }
            let charge = try #require(
                try await stripe.stripe(.GET, "/v1/payment_intents/\(paidBy)")["latest_charge"] as? String)
            let dispute = try await stripe.world.sandbox(.POST, "/sandbox/stripe/charges/\(charge)/dispute")
            #expect(dispute.status == 200, "\(dispute.json)")
            let disputed = try await stripe.customer("ben") { !StripeWorld.active($0, "garden") }
            #expect(disputed["refund_count"] as? Int == 1, "\(disputed)")
            _ = try await stripe.allDelivered()
            let opened = try #require(try await stripe.delivery(ofType: "charge.dispute.created")?["id"] as? String)
            try await stripe.world.sandbox(.POST, "/sandbox/notifications/\(opened)/resend?times=5&concurrency=5")
            try await stripe.notificationsSettled()
            #expect(try await stripe.world.customerInfo("ben")["refund_count"] as? Int == 1)

            let disputeID = try #require(dispute["id"] as? String)
            let closed = try await stripe.world.sandbox(
                .POST, "/sandbox/stripe/disputes/\(disputeID)/close", ["status": "won"])
            #expect(closed.status == 200, "\(closed.json)")
            let restored = try await stripe.customer("ben") { StripeWorld.active($0, "garden") }
            #expect(StripeWorld.active(restored, "garden"), "\(restored)")
            #expect(!StripeWorld.active(try await stripe.world.customerInfo("ana"), "garden"))
        }
    }
}
