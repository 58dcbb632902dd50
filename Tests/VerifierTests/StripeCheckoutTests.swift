import Foundation
import HTTPTypes
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// `POST /v1/customers/{app_user_id}/checkout` over real HTTP, Stripe's API stood in for.
@Suite struct StripeCheckoutTests {
    static func checkout(
        _ harness: VerifierHarness, user: String = "user_81", product: String,
        success: String = "https://shop.example/ok?s={CHECKOUT_SESSION_ID}",
        cancel: String = "https://shop.example/shop"
    ) async throws -> any HTTPAnswer {
        try await harness.send(
            .post, "/v1/customers/\(user)/checkout", kind: .public,
            json: try JSONSerialization.data(withJSONObject: [
                "product_id": product, "success_url": success, "cancel_url": cancel,
            ]))
    }

    static func scriptSession(_ standIn: StripeStandIn) async throws {
        await standIn.script(
            .post, "/v1/checkout/sessions",
            .ok(
                try StripeFixtures.object(
                    StripeFixtures.checkoutSession,
                    changing: ["id": "cs_test_new", "url": "https://checkout.stripe.com/c/pay/cs_test_new"])))
    }

    @Test func aCheckoutSessionForTheProductsPriceNamingTheCustomer() async throws {
        try await StripeWebhookTests.run { harness, standIn, _ in
            try await Self.scriptSession(standIn)
            let created = try await Self.checkout(harness, product: "garden_extra")
            #expect(created.status == .created, "\(created.text)")
            let answer = try TestJSON.object(Data(created.text.utf8))
            #expect(answer["checkout_url"] as? String == "https://checkout.stripe.com/c/pay/cs_test_new")
            #expect(answer["session_id"] as? String == "cs_test_new")

            let again = try await Self.checkout(harness, product: "garden_extra")
            #expect(again.status == .created)
            let club = try await Self.checkout(harness, product: "club_monthly")
            #expect(club.status == .created)

            let posts = await standIn.requests.filter { $0.method == .post }
            #expect(posts.count == 3)
            let form = try #require(posts.first?.body)
            let app = harness.appID
            #expect(
                form == "mode=payment&line_items[0][price]=price_garden_extra&line_items[0][quantity]=1"
                    + "&success_url=https%3A%2F%2Fshop.example%2Fok%3Fs%3D%7BCHECKOUT_SESSION_ID%7D"
                    + "&cancel_url=https%3A%2F%2Fshop.example%2Fshop&client_reference_id=user_81"
                    + "&metadata[app_id]=\(app)&metadata[app_user_id]=user_81&metadata[product_id]=garden_extra"
                    + "&payment_intent_data[metadata][app_id]=\(app)&payment_intent_data[metadata][app_user_id]=user_81"
                    + "&payment_intent_data[metadata][product_id]=garden_extra")
            // The same request again is the same request to Stripe; another product is another.
            let keys = posts.map { $0.header("Idempotency-Key") }
            #expect(keys[0] != nil && keys[0] == keys[1])
            #expect(keys[2] != keys[0])
            #expect(posts[2].body.hasPrefix("mode=subscription&line_items[0][price]=price_club_monthly"))
            #expect(posts[2].body.contains("&subscription_data[metadata][app_user_id]=user_81"))
        }
    }

    @Test func badRequestsAreRefusedFieldByFieldAndAProductNotSoldThroughStripeIsRefused() async throws {
        try await StripeWebhookTests.run { harness, standIn, _ in
            let bad = try await Self.checkout(
                harness, product: "garden_extra", success: "javascript:alert(1)", cancel: "/relative")
            #expect(bad.status == .unprocessableContent)
            #expect(try StripeCredentialsTests.pointers(bad) == ["/success_url", "/cancel_url"])
            let unknown = try await Self.checkout(harness, product: "not_sold_here")
            #expect(unknown.status == .unprocessableContent)
            #expect(try StripeCredentialsTests.pointers(unknown) == ["/product_id"])
            #expect(await standIn.requests.isEmpty)

            #expect(try await harness.send(.delete, "/v1/admin/stores/stripe").status == .noContent)
            let unconfigured = try await Self.checkout(harness, product: "garden_extra")
            #expect(unconfigured.status == .unprocessableContent)
            #expect(unconfigured.text.contains("store_not_configured"))
        }
    }
}

/// `POST /v1/customers/{app_user_id}/subscriptions/{subscription_id}/cancel`.
@Suite struct StripeCancellationTests {
    @Test func theCustomersOwnWebSubscriptionEndsWithItsPeriod() async throws {
        try await StripeWebhookTests.run { harness, standIn, _ in
            let end = 1_766_592_000
            let subscription: [String: Any] = [
                "id": "sub_c1", "status": "active", "cancel_at_period_end": false, "cancel_at": NSNull(),
                "canceled_at": NSNull(), "ended_at": NSNull(), "livemode": false,
                "metadata": ["app_id": harness.appID, "app_user_id": "user_81"],
                "items.data.0.price.id": "price_club_monthly", "items.data.0.current_period_end": end,
            ]
            await standIn.script(
                .get, "/v1/subscriptions/sub_c1",
                .ok(try StripeFixtures.object(StripeFixtures.subscription, changing: subscription)))
            await standIn.script(
                .post, "/v1/subscriptions/sub_c1",
                .ok(
                    try StripeFixtures.object(
                        StripeFixtures.subscription,
                        changing: subscription.merging(["cancel_at_period_end": true]) { _, new in new })))

            let cancelled = try await harness.send(
                .post, "/v1/customers/user_81/subscriptions/sub_c1/cancel", kind: .public)
            #expect(cancelled.status == .ok, "\(cancelled.text)")
            let answer = try TestJSON.object(Data(cancelled.text.utf8))
            #expect(answer["cancel_at_period_end"] as? Bool == true)
            #expect(answer["current_period_end"] as? String == "2025-12-24T16:00:00Z")
            let post = try #require(await standIn.requests.first { $0.method == .post })
            #expect(post.body == "cancel_at_period_end=true")
            #expect(post.header("Idempotency-Key")?.hasPrefix("shopkeeper-cancel-") == true)

            // Another customer's, or one Stripe does not know: not found, nothing sent.
            let other = try await harness.send(
                .post, "/v1/customers/user_99/subscriptions/sub_c1/cancel", kind: .public)
            #expect(other.status == .notFound)
            let unknown = try await harness.send(
                .post, "/v1/customers/user_81/subscriptions/sub_nope/cancel", kind: .public)
            #expect(unknown.status == .notFound)
            #expect(await standIn.requests.filter { $0.method == .post }.count == 1)
        }
    }
}
