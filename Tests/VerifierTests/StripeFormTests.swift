import Foundation
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
        let portal = try decoder.decode(
            StripePortalSession.self, from: try StripeFixtures.object(StripeFixtures.portalSession))
        #expect(portal.id == "bps_1Pgc7HB7WZ01zgkWNs8s9Auh")
        #expect(portal.customer == "cus_QXg1o8vcGmoR32")
        #expect(portal.url.hasPrefix("https://"))
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
