import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ShopkeeperHTTP
import ShopkeeperStores

/// An injected fault, answered as Stripe answers its own failures.
struct StripeFault: HTTPResponseError {
    var status: HTTPResponse.Status { HTTPResponse.Status(code: error.status) }
    let error: StripeError

    init(status: Int) {
        error = StripeError.fault(status)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        StripeAPIController.response(error.json, error.status, StripeIdentifiers.make("req_", length: 14))
    }
}

/// Stripe's API under `/stripe/v1` (a client's API base is `http://<sandbox>/stripe`): the calls a server makes to
/// sell through Checkout and follow what happens after (see the list in `endpoints`). Bodies are form-encoded in
/// Stripe's bracket notation, answers and errors are Stripe's JSON, `Authorization: Bearer <secret key>` (or Basic
/// with the key as user) is required, `Idempotency-Key` is honoured on writes, `Stripe-Version` is accepted.
struct StripeAPIController {
    let store: SandboxStore
    let dispatcher: NotificationDispatcher
    /// Counts the calls (`stripe.read`, `stripe.write`) and injects faults (`POST /sandbox/faults`).
    let traffic: StoreTraffic
    /// The secret key accepted (`SHOPKEEPER_SANDBOX_STRIPE_SECRET_KEY`).
    let secretKey: String
    let publicURL: URL?
    let maxBodyBytes: Int

    /// What an endpoint does with the parameters, on the store's actor.
    typealias Operation = @Sendable (isolated SandboxStore, StripeForm, Date) throws(StripeError) -> StripeValue

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("customers") { request, context in
            try await call(request, context) { store, form, now throws(StripeError) in
                try store.stripeCreateCustomer(form, at: now).json
            }
        }
        retrieve(routes, "customers", StripeCustomerRecord.self)
        retrieve(routes, "prices", StripePriceRecord.self)
        routes.get("prices") { request, context in
            try await call(request, context) { store, form, _ throws(StripeError) in
                try form.allow(["lookup_keys", "active", "limit", "product", "type", "starting_after"])
                var prices = store.stripePrices(lookupKeys: form.list("lookup_keys"), active: try form.bool("active"))
                if let product = form["product"] { prices = prices.filter { $0.product == product } }
                if let type = form["type"] {
                    prices = prices.filter { ($0.isRecurring ? "recurring" : "one_time") == type }
                }
                return store.stripeExpand(
                    try Self.page(prices.map { ($0.id, $0.json) }, form, url: "/v1/prices"), form.list("expand"))
            }
        }
        routes.get("products/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await call(request, context) { store, form, _ throws(StripeError) in
                try form.allow([])
                return try store.stripeProduct(id)
            }
        }
        routes.post("checkout/sessions") { request, context in
            let base = baseURL(for: request)
            return try await call(request, context) { store, form, now throws(StripeError) in
                let session = try store.stripeCreateSession(form, baseURL: base, at: now)
                return session.json(expandLineItems: form.list("expand").contains("line_items"))
            }
        }
        routes.get("checkout/sessions/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await call(request, context) { store, form, _ throws(StripeError) in
                try form.allow([])
                let expand = form.list("expand")
                let session = try store.stripeFind(StripeSessionRecord.self, id)
                return store.stripeExpand(
                    session.json(expandLineItems: expand.contains("line_items")),
                    expand.filter { $0 != "line_items" })
            }
        }
        routes.post("checkout/sessions/{id}/expire") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await call(request, context) { store, form, now throws(StripeError) in
                try form.allow([])
                return try store.stripeExpireSession(id, at: now).json(expandLineItems: false)
            }
        }
        routes.get("checkout/sessions/{id}/line_items") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await call(request, context) { store, form, _ throws(StripeError) in
                try form.allow(["limit", "starting_after", "ending_before"])
                let session = try store.stripeFind(StripeSessionRecord.self, id)
                return .list([session.lineItemJSON], url: session.lineItemsURL)
            }
        }
        retrieve(routes, "payment_intents", StripePaymentIntentRecord.self)
        retrieve(routes, "charges", StripeChargeRecord.self)
        retrieve(routes, "invoices", StripeInvoiceRecord.self)
        routes.get("invoice_payments") { request, context in
            try await call(request, context) { store, form, _ throws(StripeError) in
                try form.allow(["invoice", "payment", "limit", "status", "starting_after"])
                if let type = form["payment[type]"], type != "payment_intent" {
                    return .list([], url: "/v1/invoice_payments")
                }
                let payments = store.stripeInvoicePayments(
                    invoice: form["invoice"], paymentIntent: form["payment[payment_intent]"])
                let limit = try Self.limit(form)
                return .list(
                    Array(payments.prefix(limit)), url: "/v1/invoice_payments", hasMore: payments.count > limit)
            }
        }
        retrieve(routes, "subscriptions", StripeSubscriptionRecord.self)
        routes.get("subscriptions") { request, context in
            try await call(request, context) { store, form, _ throws(StripeError) in
                try form.allow(["customer", "status", "price", "limit", "starting_after"])
                // No status: those not canceled, as Stripe lists them; `all`: every one.
                let status = form["status"]
                let found = store.stripeAll(StripeSubscriptionRecord.self).filter { subscription in
                    (form["customer"].map { $0 == subscription.customer } ?? true)
                        && (form["price"].map { $0 == subscription.price.id } ?? true)
                        && (status.map { $0 == "all" || $0 == subscription.status } ?? !subscription.isOver)
                }.sorted { ($0.created, $0.id) > ($1.created, $1.id) }
                return store.stripeExpand(
                    try Self.page(found.map { ($0.id, $0.json) }, form, url: "/v1/subscriptions"), form.list("expand"))
            }
        }
        routes.post("subscriptions/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await call(request, context) { store, form, now throws(StripeError) in
                store.stripeExpand(try store.stripeUpdateSubscription(id, form, at: now).json, form.list("expand"))
            }
        }
        routes.delete("subscriptions/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await call(request, context) { store, form, now throws(StripeError) in
                try form.allow(["invoice_now", "prorate", "cancellation_details"])
                return try store.stripeCancelSubscription(id, at: now).json
            }
        }
        routes.post("refunds") { request, context in
            try await call(request, context) { store, form, now throws(StripeError) in
                try store.stripeRefund(form, at: now).json
            }
        }
        retrieve(routes, "refunds", StripeRefundRecord.self)
        retrieve(routes, "disputes", StripeDisputeRecord.self)
        routes.get("events/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await call(request, context) { store, form, _ throws(StripeError) in
                try form.allow([])
                guard let event = store.stripeEvent(id) else { throw StripeError.missing("event", id) }
                return event.json
            }
        }
        routes.get("events") { request, context in
            try await call(request, context) { store, form, _ throws(StripeError) in
                try form.allow(["type", "types", "limit", "starting_after", "delivery_success", "created"])
                var types = Set(form.list("types"))
                if let type = form["type"] { types.insert(type) }
                let (events, more) = store.stripeEvents(
                    types: types, startingAfter: form["starting_after"], limit: try Self.limit(form))
                return .list(events.map(\.json), url: "/v1/events", hasMore: more)
            }
        }
        routes.post("billing_portal/sessions") { request, context in
            let base = baseURL(for: request)
            return try await call(request, context) { store, form, now throws(StripeError) in
                try store.stripeCreatePortal(form, baseURL: base, at: now).json
            }
        }
        return routes
    }

    /// `GET /v1/<collection>/{id}` of a kept object, with `expand[]`.
    private func retrieve<T: StripeStored>(
        _ routes: RouteCollection<ServiceRequestContext>, _ collection: String, _ type: T.Type
    ) {
        routes.get("\(collection)/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await call(request, context) { store, form, _ throws(StripeError) in
                try form.allow([])
                return store.stripeExpand(try store.stripeFind(T.self, id).record.json, form.list("expand"))
            }
        }
    }

    /// A page of a list, as Stripe pages: the objects (id, JSON) after `starting_after`, at most `limit`.
    static func page(_ objects: [(id: String, json: StripeValue)], _ form: StripeForm, url: String)
        throws(StripeError) -> StripeValue
    {
        var objects = objects
        if let after = form["starting_after"], let index = objects.firstIndex(where: { $0.id == after }) {
            objects = Array(objects[(index + 1)...])
        }
        let limit = try limit(form)
        return .list(objects.prefix(limit).map(\.json), url: url, hasMore: objects.count > limit)
    }

    /// `limit`: 1 to 100, 10 by default.
    static func limit(_ form: StripeForm) throws(StripeError) -> Int {
        let limit = try form.integer("limit") ?? 10
        guard (1...100).contains(limit) else {
            throw StripeError.invalid(
                "This value must be between 1 and 100 (it currently is \(limit)).", param: "limit")
        }
        return Int(limit)
    }

    /// Authenticates, reads the parameters (the query of a GET, the form body otherwise), runs `operation`
    /// (idempotently on writes with an `Idempotency-Key`), sends the events it made, and answers as Stripe does.
    private func call(
        _ request: Request, _ context: ServiceRequestContext, _ operation: @escaping Operation
    ) async throws -> Response {
        try await traffic.observe(request.method == .get ? .stripeRead : .stripeWrite) { _ in
            try await serve(request, operation)
        }
    }

    private func serve(_ request: Request, _ operation: @escaping Operation) async throws -> Response {
        let requestId = StripeIdentifiers.make("req_", length: 14)
        guard authenticated(request) else { return Self.response(StripeError.authentication.json, 401, requestId) }
        // Stripe's libraries send a GET's and a DELETE's parameters in the query, the others' in the body.
        var pairs = StripeForm(encoded: request.uri.query ?? "").pairs
        if request.method != .get {
            let buffer: ByteBuffer
            do {
                buffer = try await request.body.collect(upTo: maxBodyBytes)
            } catch is NIOTooManyBytesError {
                throw RequestError.bodyTooLarge(limit: maxBodyBytes)
            }
            pairs += StripeForm(encoded: String(buffer: buffer)).pairs
        }
        let form = StripeForm(pairs: pairs)
        let key = request.method == .get ? nil : HTTPField.Name("Idempotency-Key").flatMap { request.headers[$0] }
        let fingerprint = "\(request.method.rawValue) \(request.uri.path)?\(form.fingerprint)"
        let now = Date()
        let answer = try await store.stripeAPI(idempotencyKey: key, fingerprint: fingerprint, requestId: requestId) {
            store throws(StripeError) in try operation(store, form, now)
        }
        if !answer.events.isEmpty { await dispatcher.send(answer.events.map(StoreEvent.stripe)) }
        var response = Self.response(answer.body, answer.status, requestId)
        if answer.replayed, let name = HTTPField.Name("Idempotent-Replayed") { response.headers[name] = "true" }
        return response
    }

    /// Bearer `<key>`, or Basic with `<key>:` (the key as user, no password), as Stripe takes it.
    private func authenticated(_ request: Request) -> Bool {
        guard let header = request.headers[.authorization] else { return false }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return false }
        switch parts[0].lowercased() {
        case "bearer": return parts[1] == secretKey
        case "basic":
            guard let data = Data(base64Encoded: String(parts[1])) else { return false }
            let user = String(decoding: data, as: UTF8.self).split(separator: ":", maxSplits: 1).first
            return user.map(String.init) == secretKey
        default: return false
        }
    }

    static func response(_ body: StripeValue, _ status: Int, _ requestId: String) -> Response {
        let data = (try? body.data()) ?? Data("{}".utf8)
        var headers: HTTPFields = [:]
        if let name = HTTPField.Name("Request-Id") { headers[name] = requestId }
        if let name = HTTPField.Name("Stripe-Version") { headers[name] = StripeAPIVersion.current }
        return JSONBody.response(json: data, status: HTTPResponse.Status(code: status), headers: headers)
    }

    /// The URL clients reach this store at (`SHOPKEEPER_SANDBOX_PUBLIC_URL`, else the request's host).
    private func baseURL(for request: Request) -> String {
        PublicBaseURL.of(publicURL, request)
    }
}
