import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShopkeeperStores

/// Stripe's API, as its own libraries call it: the app's secret key as `Authorization: Bearer`, the pinned
/// `Stripe-Version`, form-encoded bodies in bracket notation (``StripeForm``), an `Idempotency-Key` on every POST
/// (the same on every try, so a retry after a timeout or a crash is the same request to Stripe). Timeouts, 429, 5xx,
/// 409 and `Stripe-Should-Retry: true` are retried (``RetryPolicy``), then answered `503`; a 401 is a credentials
/// problem; any other refusal is Stripe's error, decoded.
struct StripeClient: Sendable {
    let http: StoreHTTP
    let apiURL: URL
    let retry: RetryPolicy

    static let storeName = "Stripe"

    /// `GET /v1/events/{id}`: the event as Stripe keeps it (a forged event id is not found).
    func event(_ id: String, key: String) async throws(VerifierError) -> StripeEvent {
        try await get("/v1/events/\(id.pathSegmentEscaped)", key: key)
    }

    /// `GET /v1/checkout/sessions/{id}` with its line items (the price it sold).
    func checkoutSession(_ id: String, key: String) async throws(VerifierError) -> StripeCheckoutSession {
        var query = StripeForm()
        query.add("expand", .list([.text("line_items")]))
        return try await get("/v1/checkout/sessions/\(id.pathSegmentEscaped)?\(query.queryEncoded)", key: key)
    }

    /// `GET /v1/subscriptions/{id}`.
    func subscription(_ id: String, key: String) async throws(VerifierError) -> StripeSubscription {
        try await get("/v1/subscriptions/\(id.pathSegmentEscaped)", key: key)
    }

    /// `GET /v1/invoices/{id}`.
    func invoice(_ id: String, key: String) async throws(VerifierError) -> StripeInvoice {
        try await get("/v1/invoices/\(id.pathSegmentEscaped)", key: key)
    }

    /// `GET /v1/payment_intents/{id}`.
    func paymentIntent(_ id: String, key: String) async throws(VerifierError) -> StripePaymentIntent {
        try await get("/v1/payment_intents/\(id.pathSegmentEscaped)", key: key)
    }

    /// `GET /v1/charges/{id}`.
    func charge(_ id: String, key: String) async throws(VerifierError) -> StripeCharge {
        try await get("/v1/charges/\(id.pathSegmentEscaped)", key: key)
    }

    /// `GET /v1/disputes/{id}`.
    func dispute(_ id: String, key: String) async throws(VerifierError) -> StripeDispute {
        try await get("/v1/disputes/\(id.pathSegmentEscaped)", key: key)
    }

    /// `GET /v1/invoice_payments?payment[type]=payment_intent&payment[payment_intent]=...`: the invoices a
    /// PaymentIntent paid (a subscription's charge names no invoice itself).
    func invoicePayments(paymentIntent: String, key: String) async throws(VerifierError)
        -> StripeList<StripeInvoicePayment>
    {
        var query = StripeForm()
        query.add("payment", .object([("type", .text("payment_intent")), ("payment_intent", .text(paymentIntent))]))
        return try await get("/v1/invoice_payments?\(query.queryEncoded)", key: key)
    }

    /// `POST /v1/checkout/sessions`.
    func createCheckoutSession(_ form: StripeForm, idempotencyKey: String, key: String) async throws(VerifierError)
        -> StripeCheckoutSession
    {
        try await post("/v1/checkout/sessions", form: form, idempotencyKey: idempotencyKey, key: key)
    }

    /// `POST /v1/billing_portal/sessions` for `customer`, who comes back to `returnURL`.
    func createPortalSession(customer: String, returnURL: String, idempotencyKey: String, key: String)
        async throws(VerifierError) -> StripePortalSession
    {
        var form = StripeForm()
        form.add("customer", customer)
        form.add("return_url", returnURL)
        return try await post("/v1/billing_portal/sessions", form: form, idempotencyKey: idempotencyKey, key: key)
    }

    /// `POST /v1/subscriptions/{id}` with `cancel_at_period_end` (`true`: it ends with its period; `false`: it
    /// renews again).
    func setCancelAtPeriodEnd(_ cancel: Bool, subscription id: String, idempotencyKey: String, key: String)
        async throws(VerifierError) -> StripeSubscription
    {
        var form = StripeForm()
        form.add("cancel_at_period_end", cancel ? "true" : "false")
        return try await post(
            "/v1/subscriptions/\(id.pathSegmentEscaped)", form: form, idempotencyKey: idempotencyKey, key: key)
    }

    private func get<T: Decodable>(_ path: String, key: String) async throws(VerifierError) -> T {
        try await call(.GET, path, form: nil, idempotencyKey: nil, key: key)
    }

    private func post<T: Decodable>(_ path: String, form: StripeForm, idempotencyKey: String, key: String)
        async throws(VerifierError) -> T
    {
        try await call(.POST, path, form: form, idempotencyKey: idempotencyKey, key: key)
    }

    /// One call, retried as Stripe's libraries retry; a 2xx answer decoded as `T`.
    private func call<T: Decodable>(
        _ method: HTTPMethod, _ path: String, form: StripeForm?, idempotencyKey: String?, key: String
    ) async throws(VerifierError) -> T {
        let url = apiURL.absoluteString.trimmingSuffix("/") + path
        let answer = try await retry.run(store: Self.storeName) { (_: Int) async throws(StoreAttemptError) in
            var request = HTTPClientRequest(url: url)
            request.method = method
            request.headers.add(name: "authorization", value: "Bearer \(key)")
            request.headers.add(name: "stripe-version", value: StripeAPIVersion.current)
            if let idempotencyKey { request.headers.add(name: "idempotency-key", value: idempotencyKey) }
            if let form {
                request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: form.encoded))
            }
            let answer = try await http.send(request, endpoint: .stripeAPI, what: "Stripe's API")
            if let retryable = Self.retryable(answer) { throw retryable }
            return answer
        }
        guard (200..<300).contains(answer.status) else { throw Self.verdict(answer) }
        do {
            return try JSONDecoder().decode(T.self, from: answer.data)
        } catch {
            throw .storeUnavailable(
                store: Self.storeName, reason: "an unreadable answer to \(path.prefix { $0 != "?" })",
                retryAfterSeconds: 5)
        }
    }

    /// Whether another try may succeed: Stripe's `Stripe-Should-Retry` header decides when it is sent; otherwise a
    /// conflict (409: a concurrent request with the same idempotency key, a lock timeout), a rate limit (429) and a
    /// server error (5xx) are retried, as Stripe's libraries retry them.
    static func retryable(_ answer: StoreHTTP.Answer) -> StoreAttemptError? {
        let reason = "Stripe's API answered \(answer.status) \(error(of: answer)?.code ?? "")"
        switch answer.headers.first(name: "stripe-should-retry") {
        case "true": return .retryable(reason: reason, retryAfter: answer.retryAfter)
        case "false": return nil
        default: break
        }
        if answer.status == 409 || answer.status == 429 || answer.status >= 500 {
            return .retryable(reason: reason, retryAfter: answer.retryAfter)
        }
        return nil
    }

    /// Stripe's error of a refused call, if it sent one.
    static func error(of answer: StoreHTTP.Answer) -> StripeErrorBody? {
        (try? JSONDecoder().decode(StripeErrorResponse.self, from: answer.data))?.error
    }

    /// The error a refused call (not worth another try) stands for.
    static func verdict(_ answer: StoreHTTP.Answer) -> VerifierError {
        let error = Self.error(of: answer) ?? StripeErrorBody(type: "api_error", message: "no error object")
        switch answer.status {
        case 401:
            return .storeCredentialsRejected(.stripe, "the secret key was refused (\(error.message ?? "401"))")
        case 403:
            return .storeCredentialsRejected(
                .stripe, "the key may not do this (a restricted key without the permission): \(error.message ?? "403")")
        case 409 where error.type == "idempotency_error":
            // The key was used with other parameters: the call is wrong, not Stripe busy.
            return .stripeRefused(status: answer.status, error: error)
        case 409, 429, 500...:
            return .storeUnavailable(
                store: storeName, reason: "answer \(answer.status) \(error.code ?? error.type)", retryAfterSeconds: 5)
        default:
            return .stripeRefused(status: answer.status, error: error)
        }
    }
}

extension String {
    /// This text without one trailing `suffix`.
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
