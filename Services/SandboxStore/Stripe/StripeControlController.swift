import Foundation
import Hummingbird
import ShopkeeperHTTP

/// `/sandbox/stripe`: what the sandbox's Stripe sells and what happens to its customers, for tests and demos.
///
/// - `PUT /prices` `{"prices": [{"id": "price_garden_extra", "product": "prod_garden_extra", "product_name": "Extra",
///   "unit_amount": 499, "currency": "usd", "recurring": {"interval": "month", "interval_count": 1},
///   "lookup_key": "...", "trial_period_days": 7}]}`: the prices sold (ids chosen by the caller; `recurring` absent:
///   one-time); prices not listed are deactivated. `GET /prices` lists them.
/// - `POST /checkout/{cs_id}/pay` `{"card": "4242424242424242"}`: pays a session as the hosted page does (a declined
///   card answers 402 with Stripe's error).
/// - `POST /customers/{id}/card` `{"card": ...}`: the customer's card from now on (renewals and retries).
/// - `POST /subscriptions/{id}/advance`: the subscription's period (or trial) ends now, or its next retry runs now.
/// - `POST /charges/{id}/dispute` `{"reason": "fraudulent"}`: the card holder disputes the charge.
/// - `POST /disputes/{id}/close` `{"status": "won" | "lost"}`.
struct StripeControlController {
    let store: SandboxStore
    let dispatcher: NotificationDispatcher
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.put("prices") { request, _ in
            let body = try await JSONBody.decode(StripePricesRequest.self, from: request, limit: maxBodyBytes)
            let prices = try body.records(at: Date())
            let saved = try await store.stripeSetPrices(prices)
            return try Self.json(.list(saved.map(\.json), url: "/v1/prices"))
        }
        routes.get("prices") { _, _ in
            try Self.json(.list(await store.stripePrices(lookupKeys: [], active: nil).map(\.json), url: "/v1/prices"))
        }
        routes.post("checkout/{id}/pay") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await JSONBody.decode(StripeCardRequest.self, from: request, limit: maxBodyBytes)
            return try await run { store throws(StripeError) in
                try store.stripePaySession(id, cardNumber: body.card, at: Date()).json(expandLineItems: false)
            }
        }
        routes.post("customers/{id}/card") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await JSONBody.decode(StripeCardRequest.self, from: request, limit: maxBodyBytes)
            return try await run { store throws(StripeError) in
                try store.stripeSetCard(customer: id, cardNumber: body.card).json
            }
        }
        routes.post("subscriptions/{id}/advance") { _, context in
            let id = context.parameters.get("id") ?? ""
            return try await run { store throws(StripeError) in try store.stripeAdvance(id, at: Date()).json }
        }
        routes.post("charges/{id}/dispute") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await ControlBody.decodeOptional(
                StripeDisputeRequest.self, from: request, limit: maxBodyBytes, empty: StripeDisputeRequest())
            return try await run { store throws(StripeError) in
                try store.stripeOpenDispute(charge: id, reason: body.reason ?? "fraudulent", at: Date()).json
            }
        }
        routes.post("disputes/{id}/close") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await JSONBody.decode(StripeDisputeRequest.self, from: request, limit: maxBodyBytes)
            return try await run { store throws(StripeError) in
                try store.stripeCloseDispute(id, status: body.status ?? "", at: Date()).json
            }
        }
        return routes
    }

    /// Runs a change, sends its events, and answers the object; a refusal becomes problem+json with Stripe's
    /// status and code (a declined card: 402 `card_declined`).
    private func run(_ body: @Sendable (isolated SandboxStore) throws(StripeError) -> StripeValue) async throws
        -> Response
    {
        let (result, events) = try await store.stripeRun(body)
        await dispatcher.send(events.map(StoreEvent.stripe))
        switch result {
        case .success(let value): return try Self.json(value)
        case .failure(let error):
            throw SandboxControlError(
                status: HTTPResponse.Status(code: error.status),
                code: error.declineCode ?? error.code ?? error.type, detail: error.message)
        }
    }

    static func json(_ value: StripeValue) throws -> Response {
        JSONBody.response(json: try value.data())
    }
}

/// `{"card": "4242424242424242"}`.
struct StripeCardRequest: Decodable, Sendable {
    var card: String
}

/// `{"reason": ...}` (opening) or `{"status": "won" | "lost"}` (closing).
struct StripeDisputeRequest: Decodable, Sendable {
    var reason: String?
    var status: String?
}

/// `PUT /sandbox/stripe/prices`.
struct StripePricesRequest: Decodable, Sendable {
    struct Price: Decodable, Sendable {
        struct Recurring: Decodable, Sendable {
            var interval: String
            var intervalCount: Int?

            enum CodingKeys: String, CodingKey {
                case interval
                case intervalCount = "interval_count"
            }
        }

        var id: String
        var product: String?
        var productName: String?
        var unitAmount: Int64
        var currency: String
        var recurring: Recurring?
        var lookupKey: String?
        var trialPeriodDays: Int?
        var active: Bool?

        enum CodingKeys: String, CodingKey {
            case id, product, currency, recurring, active
            case productName = "product_name"
            case unitAmount = "unit_amount"
            case lookupKey = "lookup_key"
            case trialPeriodDays = "trial_period_days"
        }
    }

    var prices: [Price]

    /// The prices as records, checked.
    func records(at now: Date) throws -> [StripePriceRecord] {
        var problems: [FieldProblem] = []
        var seen = Set<String>()
        for (index, price) in prices.enumerated() {
            let at = "/prices/\(index)"
            if price.id.isEmpty || price.id.contains(where: { !$0.isLetter && !$0.isNumber && $0 != "_" && $0 != "-" })
                || !seen.insert(price.id).inserted
            {
                problems.append(
                    FieldProblem(pointer: "\(at)/id", detail: "must be a unique id of letters, digits, _ and -"))
            }
            if price.unitAmount < 0 {
                problems.append(FieldProblem(pointer: "\(at)/unit_amount", detail: "must be 0 or more"))
            }
            if price.currency.count != 3 || !price.currency.allSatisfy(\.isLetter) {
                problems.append(
                    FieldProblem(pointer: "\(at)/currency", detail: "must be a three-letter ISO currency code"))
            }
            if let recurring = price.recurring {
                if !["day", "week", "month", "year"].contains(recurring.interval) {
                    problems.append(
                        FieldProblem(pointer: "\(at)/recurring/interval", detail: "must be day, week, month or year"))
                }
                if let count = recurring.intervalCount, !(1...365).contains(count) {
                    problems.append(FieldProblem(pointer: "\(at)/recurring/interval_count", detail: "must be 1 to 365"))
                }
            }
            if let days = price.trialPeriodDays, !(1...730).contains(days) || price.recurring == nil {
                problems.append(
                    FieldProblem(pointer: "\(at)/trial_period_days", detail: "must be 1 to 730, on a recurring price"))
            }
        }
        guard problems.isEmpty else { throw RequestError.validationFailed(problems) }
        return prices.map { price in
            let bare = price.id.hasPrefix("price_") ? String(price.id.dropFirst(6)) : price.id
            return StripePriceRecord(
                id: price.id, product: price.product ?? "prod_\(bare)", productName: price.productName ?? bare,
                active: price.active ?? true, currency: price.currency.lowercased(), unitAmount: price.unitAmount,
                interval: price.recurring?.interval, intervalCount: price.recurring.map { $0.intervalCount ?? 1 },
                lookupKey: price.lookupKey, trialPeriodDays: price.trialPeriodDays, created: now.stripeSeconds)
        }
    }
}
