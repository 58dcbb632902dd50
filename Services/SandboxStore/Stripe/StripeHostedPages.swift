import Foundation
import Hummingbird
import NIOCore
import ShopkeeperHTTP

/// The pages a customer sees, under `/stripe`: Checkout's payment page (`/stripe/pay/{session}`: a card number
/// form, no script) and the customer portal (`/stripe/portal/{portal session}`: cancel a subscription at the end of
/// its period). A paid session redirects (303) to its `success_url`, `{CHECKOUT_SESSION_ID}` replaced by its id.
struct StripeHostedPages {
    let store: SandboxStore
    let dispatcher: NotificationDispatcher
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("pay/{id}") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard let session = await store.stripeGet(StripeSessionRecord.self, id) else {
                return Self.page("Not found", "<p>No such Checkout Session.</p>", status: .notFound)
            }
            return Self.payPage(session, error: nil)
        }
        routes.post("pay/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            let form = try await Self.form(request, limit: maxBodyBytes)
            let card = form["card"] ?? ""
            let (result, events) = try await store.stripeRun { store throws(StripeError) in
                try store.stripePaySession(id, cardNumber: card, at: Date())
            }
            await dispatcher.send(events.map(StoreEvent.stripe))
            switch result {
            case .success(let session):
                return Self.redirect(session.successURL.map { Self.successURL($0, id: session.id) })
            case .failure(let error):
                guard let session = await store.stripeGet(StripeSessionRecord.self, id) else {
                    return Self.page("Not found", "<p>No such Checkout Session.</p>", status: .notFound)
                }
                return Self.payPage(session, error: error.message, status: HTTPResponse.Status(code: error.status))
            }
        }
        routes.get("portal/{id}") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard let portal = await store.stripeGet(StripePortalRecord.self, id) else {
                return Self.page("Not found", "<p>No such portal session.</p>", status: .notFound)
            }
            return Self.portalPage(portal, subscriptions: await store.stripeSubscriptions(customer: portal.customer))
        }
        routes.post("portal/{id}/cancel") { request, context in
            let id = context.parameters.get("id") ?? ""
            let form = try await Self.form(request, limit: maxBodyBytes)
            let subscription = form["subscription"] ?? ""
            let (result, events) = try await store.stripeRun { store throws(StripeError) in
                let portal = try store.stripeFind(StripePortalRecord.self, id)
                let owned = try store.stripeFind(StripeSubscriptionRecord.self, subscription, param: "subscription")
                guard owned.customer == portal.customer else {
                    throw StripeError.missing("subscription", subscription, param: "subscription")
                }
                return try store.stripeUpdateSubscription(
                    subscription, StripeForm(pairs: [("cancel_at_period_end", "true")]), at: Date())
            }
            await dispatcher.send(events.map(StoreEvent.stripe))
            if case .failure(let error) = result {
                return Self.page("Not changed", "<p>\(Self.escape(error.message))</p>", status: .badRequest)
            }
            return Self.redirect("/stripe/portal/\(id)")
        }
        return routes
    }

    /// A `success_url` with `{CHECKOUT_SESSION_ID}` replaced, as Stripe does.
    static func successURL(_ template: String, id: String) -> String {
        template.replacingOccurrences(of: "{CHECKOUT_SESSION_ID}", with: id)
    }

    /// The form body of a page's POST.
    static func form(_ request: Request, limit: Int) async throws -> StripeForm {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw RequestError.bodyTooLarge(limit: limit)
        }
        return StripeForm(encoded: String(buffer: buffer))
    }

    static func redirect(_ location: String?) -> Response {
        guard let location else { return page("Paid", "<p>Thank you: the payment is complete.</p>") }
        return Response(status: .seeOther, headers: [.location: location, .contentLength: "0"])
    }

    private static func payPage(_ session: StripeSessionRecord, error: String?, status: HTTPResponse.Status = .ok)
        -> Response
    {
        let amount = String(format: "%.2f", Double(session.amount) / 100) + " " + session.price.currency.uppercased()
        let what = escape(session.price.productName)
        guard session.status == "open" else {
            return page("Checkout", "<p>This Checkout Session is \(escape(session.status)).</p>", status: status)
        }
        let period = session.price.interval.map { " every \(session.price.intervalCount ?? 1) \($0)" } ?? ""
        let cancel = session.cancelURL.map { "<p><a href=\"\(escape($0))\">Cancel</a></p>" } ?? ""
        let problem = error.map { "<p role=\"alert\" class=\"error\">\(escape($0))</p>" } ?? ""
        let body = """
            <h1>\(what)</h1>
            <p class="amount">\(amount)\(escape(period))</p>
            \(problem)
            <form method="post" action="/stripe/pay/\(escape(session.id))">
            <label for="card">Card number</label>
            <input id="card" name="card" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242">
            <button type="submit" id="pay">Pay</button>
            </form>
            <p class="hint">Test cards: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined,
            4000 0000 0000 9995 has insufficient funds, 4000 0000 0000 0341 pays now and fails later.</p>
            \(cancel)
            """
        return page("Pay \(what)", body, status: status)
    }

    private static func portalPage(_ portal: StripePortalRecord, subscriptions: [StripeSubscriptionRecord])
        -> Response
    {
        let rows = subscriptions.map { subscription in
            let state =
                subscription.cancelAtPeriodEnd
                ? "cancels at the end of the period" : escape(subscription.status)
            let button =
                subscription.isOver || subscription.cancelAtPeriodEnd
                ? ""
                : """
                <form method="post" action="/stripe/portal/\(escape(portal.id))/cancel">
                <input type="hidden" name="subscription" value="\(escape(subscription.id))">
                <button type="submit">Cancel subscription</button></form>
                """
            return
                "<li><span class=\"product\">\(escape(subscription.price.productName))</span>: \(state)\(button)</li>"
        }.joined(separator: "\n")
        let back = portal.returnURL.map { "<p><a href=\"\(escape($0))\">Return</a></p>" } ?? ""
        return page("Your subscriptions", "<h1>Your subscriptions</h1><ul>\(rows)</ul>\(back)")
    }

    static func page(_ title: String, _ body: String, status: HTTPResponse.Status = .ok) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title)) · Shopkeeper sandbox (Stripe)</title>
            <meta name="viewport" content="width=device-width, initial-scale=1"></head>
            <body>\(body)</body></html>
            """
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
