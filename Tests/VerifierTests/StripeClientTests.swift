import AsyncHTTPClient
import Foundation
import HTTPTypes
import ShopkeeperStores
import Testing

@testable import Verifier

/// Stripe's request encoding and object shapes, held to Stripe's own library and fixtures.
@Suite struct StripeFormTests {
    /// The body Stripe's Python library (16.1.0) sends for the same parameters, character for character:
    /// `urlencode(list(_api_encode(params))).replace("%5B", "[").replace("%5D", "]")`.
    @Test func encodesAsStripesLibraryDoes() {
        let user = "user 81/ü&=+[x]"
        var form = StripeForm()
        form.add("mode", "subscription")
        form.add("line_items", .list([.object([("price", .text("price_garden_club")), ("quantity", .text("1"))])]))
        form.add("client_reference_id", "user 81/ü")
        form.add("metadata", ["app_user_id": user, "app_id": "app_7Gk"])
        form.add(
            "subscription_data",
            .object([("metadata", .object([("app_id", .text("app_7Gk")), ("app_user_id", .text(user))]))]))
        form.add("success_url", "https://shop.example/ok?session_id={CHECKOUT_SESSION_ID}")
        form.add("customer", nil as String?)
        form.add("expand", .list([.text("line_items")]))
        #expect(
            form.encoded
                == "mode=subscription&line_items[0][price]=price_garden_club&line_items[0][quantity]=1"
                + "&client_reference_id=user+81%2F%C3%BC&metadata[app_id]=app_7Gk"
                + "&metadata[app_user_id]=user+81%2F%C3%BC%26%3D%2B[x]&subscription_data[metadata][app_id]=app_7Gk"
                + "&subscription_data[metadata][app_user_id]=user+81%2F%C3%BC%26%3D%2B[x]"
                + "&success_url=https%3A%2F%2Fshop.example%2Fok%3Fsession_id%3D%7BCHECKOUT_SESSION_ID%7D"
                + "&expand[0]=line_items")
    }

    /// Every object Shopkeeper reads decodes from Stripe's own example, whole (extra fields ignored).
    @Test func decodesStripesFixtures() throws {
        let decoder = JSONDecoder()
        let session = try decoder.decode(
            StripeCheckoutSession.self, from: try StripeFixtures.object(StripeFixtures.checkoutSession))
        #expect(session.mode == "payment")
        #expect(session.paymentIntent == StripeID("pi_1PgafyB7WZ01zgkWSjxsAJo3"))
        let subscription = try decoder.decode(
            StripeSubscription.self, from: try StripeFixtures.object(StripeFixtures.subscription))
        #expect(subscription.items.data.first?.price.id == "price_1PgafmB7WZ01zgkW6dKueIc5")
        #expect(subscription.items.data.first?.currentPeriodEnd == 976_287_773)
        let invoice = try decoder.decode(StripeInvoice.self, from: try StripeFixtures.object(StripeFixtures.invoice))
        #expect(invoice.subscriptionID == "subscription")
        #expect(invoice.lines.data.first?.period.end == 1_721_954_054)
        let payment = try decoder.decode(
            StripeInvoicePayment.self,
            from: try StripeFixtures.object(
                StripeFixtures.invoicePayment, changing: ["payment.payment_intent": "pi_1"]))
        #expect(payment.invoice.id == "invoice")
        #expect(payment.payment.paymentIntent?.id == "pi_1")
        let charge = try decoder.decode(StripeCharge.self, from: try StripeFixtures.object(StripeFixtures.charge))
        #expect(charge.id == "ch_1PgafuB7WZ01zgkWXYmPNZs8")
        let dispute = try decoder.decode(StripeDispute.self, from: try StripeFixtures.object(StripeFixtures.dispute))
        #expect(dispute.charge.id == "ch_1PgafuB7WZ01zgkWXYmPNZs8")
        let intent = try decoder.decode(
            StripePaymentIntent.self, from: try StripeFixtures.object(StripeFixtures.paymentIntent))
        #expect(intent.status == "requires_payment_method")
        let event = try decoder.decode(StripeEvent.self, from: try StripeFixtures.object(StripeFixtures.event))
        #expect(event.data.object.object == "plan")
        // An expanded field decodes to its id too.
        let expanded = try decoder.decode(
            StripeCheckoutSession.self,
            from: try StripeFixtures.object(
                StripeFixtures.checkoutSession,
                changing: ["payment_intent": ["id": "pi_expanded", "object": "payment_intent"]]))
        #expect(expanded.paymentIntent?.id == "pi_expanded")
    }
}

/// ``StripeClient`` over real HTTP against a stand-in for Stripe's API.
@Suite struct StripeClientTests {
    static let key = "sk_test_51Hx0000000000000000000000000000kEy9"

    static func withClient<T: Sendable>(
        attempts: Int = 3, _ body: @Sendable (StripeClient, StripeStandIn) async throws -> T
    ) async throws -> T {
        try await StripeStandIn.run { standIn, url in
            let http = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                let client = StripeClient(
                    http: StoreHTTP(client: http, timeout: .seconds(5)), apiURL: url,
                    retry: RetryPolicy(attempts: attempts, base: .milliseconds(1)))
                let result = try await body(client, standIn)
                try await http.shutdown()
                return result
            } catch {
                try? await http.shutdown()
                throw error
            }
        }
    }

    @Test func sendsTheKeyVersionAndFormAndReusesTheIdempotencyKeyOnRetries() async throws {
        try await Self.withClient { client, standIn in
            let session = try StripeFixtures.object(
                StripeFixtures.checkoutSession,
                changing: ["id": "cs_test_1", "url": "https://checkout.stripe.com/c/pay/cs_test_1"])
            await standIn.script(
                .post, "/v1/checkout/sessions",
                .error(.internalServerError, type: "api_error", message: "try again"),
                .error(.conflict, type: "invalid_request_error", code: "lock_timeout", message: "busy"),
                .ok(session))
            var form = StripeForm()
            form.add("mode", "payment")
            let created = try await client.createCheckoutSession(form, idempotencyKey: "checkout-abc", key: Self.key)
            #expect(created.id == "cs_test_1")
            let requests = await standIn.requests
            #expect(requests.count == 3)
            for request in requests {
                #expect(request.header("Authorization") == "Bearer \(Self.key)")
                #expect(request.header("Stripe-Version") == StripeAPIVersion.current)
                #expect(request.header("Idempotency-Key") == "checkout-abc")
                #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
                #expect(request.body == "mode=payment")
            }
        }
    }

    @Test func readsExpandLineItemsAndSendsNoIdempotencyKeyOnGets() async throws {
        try await Self.withClient { client, standIn in
            await standIn.script(
                .get, "/v1/checkout/sessions/cs_test_2",
                .ok(try StripeFixtures.object(StripeFixtures.checkoutSession, changing: ["id": "cs_test_2"])))
            _ = try await client.checkoutSession("cs_test_2", key: Self.key)
            await standIn.script(
                .get, "/v1/invoice_payments",
                .ok(Data(#"{"object":"list","data":[],"has_more":false,"url":"/v1/invoice_payments"}"#.utf8)))
            let payments = try await client.invoicePayments(paymentIntent: "pi_3", key: Self.key)
            #expect(payments.data.isEmpty)
            let requests = await standIn.requests
            #expect(
                requests.map(\.uri) == [
                    "/v1/checkout/sessions/cs_test_2?expand%5B0%5D=line_items",
                    "/v1/invoice_payments?payment%5Btype%5D=payment_intent&payment%5Bpayment_intent%5D=pi_3",
                ])
            #expect(requests.allSatisfy { $0.header("Idempotency-Key") == nil })
        }
    }

    @Test func refusalsAreSortedIntoCredentialsUnavailableAndStripesOwnError() async throws {
        try await Self.withClient(attempts: 2) { client, standIn in
            await standIn.script(
                .get, "/v1/events/evt_401",
                .error(.unauthorized, type: "invalid_request_error", message: "Invalid API Key provided: sk_test_***"))
            await #expect(
                throws: VerifierError.storeCredentialsRejected(
                    .stripe, "the secret key was refused (Invalid API Key provided: sk_test_***)")
            ) {
                _ = try await client.event("evt_401", key: Self.key)
            }

            // Unknown to Stripe (a forged id): Stripe's error, a verdict.
            do {
                _ = try await client.event("evt_forged", key: Self.key)
                Issue.record("a missing event was answered")
            } catch {
                guard case .stripeRefused(let status, let body)? = error as? VerifierError else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(status == 404)
                #expect(body.code == "resource_missing")
                #expect((error as? VerifierError)?.isVerdict == true)
            }

            // Down for every try: 503 for our caller, never a verdict.
            await standIn.script(.get, "/v1/events/evt_down", .error(.badGateway, type: "api_error", message: "down"))
            do {
                _ = try await client.event("evt_down", key: Self.key)
                Issue.record("an outage was answered")
            } catch {
                guard case .storeUnavailable? = error as? VerifierError else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect((error as? VerifierError)?.isVerdict == false)
            }
            #expect(await standIn.requests.filter { $0.uri == "/v1/events/evt_down" }.count == 2)

            // Stripe says not to retry: one try.
            var refused = StripeStandIn.Answer.error(.conflict, type: "idempotency_error", message: "other params")
            refused.headers[HTTPField.Name("Stripe-Should-Retry")!] = "false"
            await standIn.script(.post, "/v1/checkout/sessions", refused)
            do {
                _ = try await client.createCheckoutSession(StripeForm(), idempotencyKey: "k", key: Self.key)
                Issue.record("a refused idempotency key was answered")
            } catch {
                guard case .stripeRefused(409, let body)? = error as? VerifierError else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(body.type == "idempotency_error")
            }
            #expect(await standIn.requests.filter { $0.method == .post }.count == 1)
        }
    }
}
