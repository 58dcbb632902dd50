import Foundation
import HTTPTypes
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

@testable import SandboxStore

/// The sandbox's Stripe: its API's authentication, errors and idempotency, Checkout paid and declined, renewals and
/// failures on `advance`, refunds, disputes, signed webhooks, and state that survives a restart.
@Suite struct StripeSandboxTests {
    @Test func authenticationErrorsAndUnknownParameters() async throws {
        try await SandboxHarness.run { sandbox in
            let anonymous = try await sandbox.stripe(.get, "customers/cus_none", key: nil)
            #expect(anonymous.status == 401)
            #expect((anonymous.json["error"] as? [String: Any])?["type"] as? String == "invalid_request_error")
            #expect(try await sandbox.stripe(.get, "customers/cus_none", key: "sk_test_other").status == 401)
            let missing = try await sandbox.stripe(.get, "customers/cus_none")
            let error = try #require(missing.json["error"] as? [String: Any])
            #expect(missing.status == 404 && error["code"] as? String == "resource_missing")
            #expect(error["param"] as? String == "id" && error["message"] as? String == "No such customer: 'cus_none'")
            let unknown = try await sandbox.stripe(.post, "customers", [("colour", "blue")])
            #expect(unknown.status == 400)
            #expect((unknown.json["error"] as? [String: Any])?["code"] as? String == "parameter_unknown")
            // An outage: an injected fault answers as Stripe fails (`api_error`), then it answers again.
            let fault = try await sandbox.send(
                .post, "/sandbox/faults", json: ["endpoint": "stripe.read", "count": 1, "status": 503])
            #expect(fault.status == .created || fault.status == .ok)
            let outage = try await sandbox.stripe(.get, "customers/cus_none")
            #expect(outage.status == 503)
            #expect((outage.json["error"] as? [String: Any])?["type"] as? String == "api_error")
            #expect(try await sandbox.stripe(.get, "customers/cus_none").status == 404)
            let noMode = try await sandbox.stripe(.post, "checkout/sessions", [("line_items[0][price]", "price_x")])
            #expect((noMode.json["error"] as? [String: Any])?["param"] as? String == "mode")
        }
    }

    @Test func idempotencyKeysReplayTheFirstAnswerAndRefuseOtherParameters() async throws {
        try await SandboxHarness.run { sandbox in
            let form = [("email", "ada@example.com"), ("metadata[app_user_id]", "ada")]
            let first = try await sandbox.stripe(.post, "customers", form, idempotencyKey: "k1")
            let again = try await sandbox.stripe(.post, "customers", form, idempotencyKey: "k1")
            #expect(first.status == 200 && again.status == 200)
            #expect(first.json["id"] as? String == again.json["id"] as? String)
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            let other = try await sandbox.stripe(
                .post, "customers", [("email", "eve@example.com")], idempotencyKey: "k1")
            #expect(other.status == 400)
            #expect((other.json["error"] as? [String: Any])?["type"] as? String == "idempotency_error")
            let fresh = try await sandbox.stripe(.post, "customers", form)
            #expect(fresh.json["id"] as? String != first.json["id"] as? String)
        }
    }

    @Test func aDeclinedCardLeavesTheSessionOpenAndAGoodOnePaysIt() async throws {
        try await SandboxHarness.run { sandbox in
            try await sandbox.stripePrices()
            let session = try await sandbox.stripeSession()
            let (declined, error) = try await sandbox.stripePay(session, card: "4000000000000002")
            #expect(declined == 402 && error["code"] as? String == "generic_decline")
            let (poor, funds) = try await sandbox.stripePay(session, card: "4000 0000 0000 9995")
            #expect(poor == 402 && funds["code"] as? String == "insufficient_funds")
            let open = try await sandbox.stripe(.get, "checkout/sessions/\(session)")
            #expect(open.json["status"] as? String == "open" && open.json["payment_status"] as? String == "unpaid")
            let failedIntent = try #require(open.json["payment_intent"] as? String)
            let failed = try await sandbox.stripe(.get, "payment_intents/\(failedIntent)")
            #expect(failed.json["status"] as? String == "requires_payment_method")
            #expect(
                (failed.json["last_payment_error"] as? [String: Any])?["decline_code"] as? String
                    == "insufficient_funds")

            // The hosted page: paid with a redirect to the success URL, the session id filled in.
            let response = try await sandbox.send(
                .post, "/stripe/pay/\(session)", body: .init(string: "card=4242+4242+4242+4242"),
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "http://shop.example/ok?session=\(session)")
            let paid = try await sandbox.stripe(.get, "checkout/sessions/\(session)", [("expand[]", "line_items")])
            #expect(paid.json["status"] as? String == "complete" && paid.json["payment_status"] as? String == "paid")
            #expect(paid.json["customer"] as? String != nil)
            let items = try #require((paid.json["line_items"] as? [String: Any])?["data"] as? [[String: Any]])
            #expect(items.count == 1 && items[0]["amount_total"] as? Int == 499)
            let intent = try await sandbox.stripe(
                .get, "payment_intents/\(try #require(paid.json["payment_intent"] as? String))")
            #expect(intent.json["status"] as? String == "succeeded" && intent.json["amount_received"] as? Int == 499)
            #expect(try await sandbox.stripePay(session).0 == 409)
        }
    }

    @Test func subscriptionsRenewFailRecoverAndEndWithSignedWebhooks() async throws {
        try await NotificationWorld.run { world in
            let sandbox = world.sandbox
            try await sandbox.stripePrices()
            let session = try await sandbox.stripeSession("price_monthly", mode: "subscription")
            #expect(try await sandbox.stripePay(session, card: "4000000000000341").0 == 200)
            let paid = try await sandbox.stripe(.get, "checkout/sessions/\(session)")
            let id = try #require(paid.json["subscription"] as? String)
            let customer = try #require(paid.json["customer"] as? String)
            let subscription = try await sandbox.stripe(.get, "subscriptions/\(id)")
            #expect(subscription.json["status"] as? String == "active")
            #expect((subscription.json["metadata"] as? [String: Any])?["app_user_id"] as? String == "ada")
            let first = try #require(subscription.json["latest_invoice"] as? String)
            let payments = try await sandbox.stripe(.get, "invoice_payments", [("invoice", first)])
            #expect((payments.json["data"] as? [[String: Any]])?.count == 1)

            let (_, failing) = try await sandbox.stripeControl("subscriptions/\(id)/advance")
            #expect(failing["status"] as? String == "past_due")
            let invoiceId = try #require(failing["latest_invoice"] as? String)
            let invoice = try await sandbox.stripe(.get, "invoices/\(invoiceId)")
            #expect(invoice.json["status"] as? String == "open" && invoice.json["attempt_count"] as? Int == 1)
            let parent = try #require(invoice.json["parent"] as? [String: Any])
            #expect((parent["subscription_details"] as? [String: Any])?["subscription"] as? String == id)

            #expect(
                try await sandbox.stripeControl("customers/\(customer)/card", ["card": "4242424242424242"]).0 == 200)
            let (_, recovered) = try await sandbox.stripeControl("subscriptions/\(id)/advance")
            #expect(recovered["status"] as? String == "active")
            #expect(try await sandbox.stripe(.get, "invoices/\(invoiceId)").json["status"] as? String == "paid")

            let ending = try await sandbox.stripe(.post, "subscriptions/\(id)", [("cancel_at_period_end", "true")])
            #expect(ending.json["cancel_at_period_end"] as? Bool == true)
            let (_, ended) = try await sandbox.stripeControl("subscriptions/\(id)/advance")
            #expect(ended["status"] as? String == "canceled")

            let expected = [
                "checkout.session.completed", "customer.subscription.created", "invoice.paid",
                "invoice.payment_failed", "customer.subscription.updated", "customer.subscription.deleted",
            ]
            let received = try await eventually(
                timeout: .seconds(10), { await world.inbox.requests("/stripe") },
                until: { requests in
                    let types = Set(requests.compactMap { Self.type(of: $0.body) })
                    return expected.allSatisfy(types.contains)
                })
            for request in received {
                let header = try #require(request.signature)
                _ = try StripeWebhookSignature.verify(
                    payload: Array(request.body.utf8), header: header, secrets: ["whsec_shopkeeper_sandbox"])
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
                #expect(
                    object["object"] as? String == "event"
                        && object["api_version"] as? String == StripeAPIVersion.current)
                let eventId = try #require(object["id"] as? String)
                #expect(try await sandbox.stripe(.get, "events/\(eventId)").status == 200)
            }
            let types = Set(received.compactMap { Self.type(of: $0.body) })
            #expect(expected.allSatisfy(types.contains), "\(types)")
        }
    }

    @Test func aRenewalThatKeepsFailingIsRetriedThenCancelled() async throws {
        try await SandboxHarness.run { sandbox in
            let paid = try await sandbox.stripeSubscription(card: "4000000000000341")
            let id = try #require(paid["subscription"] as? String)
            var statuses: [String] = []
            for _ in 0..<4 {
                let (_, subscription) = try await sandbox.stripeControl("subscriptions/\(id)/advance")
                statuses.append(subscription["status"] as? String ?? "")
            }
            #expect(statuses == ["past_due", "past_due", "past_due", "canceled"])
            let ended = try await sandbox.stripe(.get, "subscriptions/\(id)")
            let details = try #require(ended.json["cancellation_details"] as? [String: Any])
            #expect(details["reason"] as? String == "payment_failed")
            let invoice = try await sandbox.stripe(
                .get, "invoices/\(try #require(ended.json["latest_invoice"] as? String))")
            #expect(invoice.json["attempt_count"] as? Int == 4 && invoice.json["status"] as? String == "open")
            #expect(try await sandbox.stripeControl("subscriptions/\(id)/advance").0 == 409)
        }
    }

    /// Advanced at once, again and again (within the second the subscription began): each period still ends later
    /// than the one before, as a renewal's does at Stripe, so no renewal looks like the period it renews.
    @Test func advancingWithinASecondStillMovesThePeriodOn() async throws {
        try await SandboxHarness.run { sandbox in
            let paid = try await sandbox.stripeSubscription()
            let id = try #require(paid["subscription"] as? String)
            // Since API version 2025-03-31 the period is the subscription item's.
            func periodEnd(_ subscription: [String: Any]) -> Int? {
                ((subscription["items"] as? [String: Any])?["data"] as? [[String: Any]])?.first?["current_period_end"]
                    as? Int
            }
            var ends = [try #require(periodEnd(try await sandbox.stripe(.get, "subscriptions/\(id)").json))]
            for _ in 0..<3 {
                let (status, subscription) = try await sandbox.stripeControl("subscriptions/\(id)/advance")
                #expect(status == 200)
                ends.append(try #require(periodEnd(subscription)))
            }
            #expect(zip(ends, ends.dropFirst()).allSatisfy { $0 < $1 }, "\(ends)")
        }
    }

    @Test func subscriptionsRenewOnTheClock() async throws {
        // A month lasts a second or so: the clock renews the subscription on its own, a new paid invoice each time.
        let environment = [
            "SHOPKEEPER_SANDBOX_TIME_SCALE": "10000000", "SHOPKEEPER_SANDBOX_AUTO_RENEW": "true",
            "SHOPKEEPER_SANDBOX_TICK_MS": "50",
        ]
        try await SandboxHarness.run(environment: environment) { sandbox in
            let paid = try await sandbox.stripeSubscription()
            let id = try #require(paid["subscription"] as? String)
            let first = try #require(paid["invoice"] as? String)
            let renewed = try await eventually(
                timeout: .seconds(10), { try await sandbox.stripe(.get, "subscriptions/\(id)").json },
                until: { ($0["latest_invoice"] as? String).map { $0 != first } ?? false })
            let invoice = try await sandbox.stripe(
                .get, "invoices/\(try #require(renewed["latest_invoice"] as? String))")
            #expect(invoice.json["status"] as? String == "paid")
            #expect(invoice.json["billing_reason"] as? String == "subscription_cycle")
        }
    }

    @Test func theCustomerPortalCancelsAtThePeriodsEnd() async throws {
        try await SandboxHarness.run { sandbox in
            let paid = try await sandbox.stripeSubscription()
            let id = try #require(paid["subscription"] as? String)
            let customer = try #require(paid["customer"] as? String)
            let portal = try await sandbox.stripe(
                .post, "billing_portal/sessions", [("customer", customer), ("return_url", "http://shop.example/me")])
            #expect(portal.json["object"] as? String == "billing_portal.session")
            let link = try #require(portal.json["url"] as? String)
            let url = try #require(URL(string: link))
            let page = try await sandbox.send(.get, url.path)
            #expect(page.status == .ok && String(buffer: page.body).contains(id))
            let cancel = try await sandbox.send(
                .post, url.path + "/cancel", body: .init(string: "subscription=\(id)"),
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(cancel.status == .seeOther)
            let ending = try await sandbox.stripe(.get, "subscriptions/\(id)")
            #expect(
                ending.json["cancel_at_period_end"] as? Bool == true && ending.json["status"] as? String == "active")
            let events = try await sandbox.stripe(.get, "events", [("type", "customer.subscription.updated")])
            let update = try #require((events.json["data"] as? [[String: Any]])?.first)
            let previous = try #require((update["data"] as? [String: Any])?["previous_attributes"] as? [String: Any])
            #expect(previous["cancel_at_period_end"] as? Bool == false)
        }
    }

    @Test func concurrentRetriesWithOneIdempotencyKeyMakeOneObject() async throws {
        try await SandboxHarness.run { sandbox in
            let ids = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let answer = try await sandbox.stripe(
                            .post, "customers", [("email", "ada@example.com")], idempotencyKey: "same")
                        return answer.json["id"] as? String
                    }
                }
                var ids: Set<String?> = []
                for try await id in group { ids.insert(id) }
                return ids
            }
            #expect(ids.count == 1 && ids.first != nil)
        }
    }

    @Test func refundsAndDisputes() async throws {
        try await SandboxHarness.run { sandbox in
            try await sandbox.stripePrices()
            let session = try await sandbox.stripeSession()
            try await sandbox.stripePay(session)
            let intentId = try #require(
                try await sandbox.stripe(.get, "checkout/sessions/\(session)").json["payment_intent"] as? String)
            let chargeId = try #require(
                try await sandbox.stripe(.get, "payment_intents/\(intentId)").json["latest_charge"] as? String)
            let part = try await sandbox.stripe(.post, "refunds", [("charge", chargeId), ("amount", "100")])
            #expect(part.status == 200 && part.json["amount"] as? Int == 100)
            let tooMuch = try await sandbox.stripe(.post, "refunds", [("charge", chargeId), ("amount", "1000")])
            #expect(tooMuch.status == 400)
            let rest = try await sandbox.stripe(.post, "refunds", [("payment_intent", intentId)])
            #expect(rest.json["amount"] as? Int == 399)
            let charge = try await sandbox.stripe(.get, "charges/\(chargeId)")
            #expect(charge.json["refunded"] as? Bool == true && charge.json["amount_refunded"] as? Int == 499)
            let again = try await sandbox.stripe(.post, "refunds", [("charge", chargeId)])
            #expect((again.json["error"] as? [String: Any])?["code"] as? String == "charge_already_refunded")

            let other = try await sandbox.stripeSession()
            try await sandbox.stripePay(other)
            let otherIntent = try #require(
                try await sandbox.stripe(.get, "checkout/sessions/\(other)").json["payment_intent"] as? String)
            let otherCharge = try #require(
                try await sandbox.stripe(.get, "payment_intents/\(otherIntent)").json["latest_charge"] as? String)
            let (opened, dispute) = try await sandbox.stripeControl("charges/\(otherCharge)/dispute")
            #expect(opened == 200 && dispute["status"] as? String == "needs_response")
            #expect(try await sandbox.stripe(.get, "charges/\(otherCharge)").json["disputed"] as? Bool == true)
            let disputeId = try #require(dispute["id"] as? String)
            #expect(try await sandbox.stripeControl("disputes/\(disputeId)/close", ["status": "won"]).0 == 200)
            #expect(try await sandbox.stripe(.get, "disputes/\(disputeId)").json["status"] as? String == "won")
            #expect(try await sandbox.stripeControl("disputes/\(disputeId)/close", ["status": "lost"]).0 == 409)
            let events = try await sandbox.stripe(.get, "events", [("type", "charge.dispute.closed")])
            #expect((events.json["data"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test func stripeStateSurvivesARestart() async throws {
        let directory = SandboxHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = Box<[String]>()
        try await SandboxHarness.run(stateDirectory: directory) { sandbox in
            try await sandbox.stripePrices()
            let session = try await sandbox.stripeSession("price_monthly", mode: "subscription")
            try await sandbox.stripePay(session)
            let subscription = try #require(
                try await sandbox.stripe(.get, "checkout/sessions/\(session)").json["subscription"] as? String)
            let event = try #require(
                (try await sandbox.stripe(.get, "events", [("limit", "1")]).json["data"] as? [[String: Any]])?.first?[
                    "id"] as? String)
            made.value = [session, subscription, event]
        }
        let ids = try #require(made.value)
        try await SandboxHarness.run(stateDirectory: directory) { sandbox in
            let session = try await sandbox.stripe(.get, "checkout/sessions/\(ids[0])")
            let subscription = try await sandbox.stripe(.get, "subscriptions/\(ids[1])")
            let event = try await sandbox.stripe(.get, "events/\(ids[2])")
            let price = try await sandbox.stripe(.get, "prices/price_gems")
            #expect(session.json["status"] as? String == "complete")
            #expect(subscription.json["status"] as? String == "active")
            #expect(event.status == 200 && price.status == 200)
        }
    }

    static func type(of body: String) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["type"] as? String
    }
}
