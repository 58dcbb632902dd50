import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import SandboxStore

/// Calls of the sandbox's Stripe API (form-encoded, with the secret key) and its Stripe controls.
extension SandboxHarness {
    static let stripeKey = "sk_test_shopkeeper_sandbox"

    /// Calls `/stripe/v1/<path>` with `form` (the query of a GET, the body otherwise); the status, the JSON object and
    /// the headers.
    @discardableResult
    func stripe(
        _ method: HTTPRequest.Method, _ path: String, _ form: [(String, String)] = [],
        key: String? = SandboxHarness.stripeKey, idempotencyKey: String? = nil
    ) async throws -> (status: Int, json: [String: Any], headers: HTTPFields) {
        let encoded = form.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&")
        var headers: HTTPFields = [:]
        if let key { headers[.authorization] = "Bearer \(key)" }
        if let idempotencyKey, let name = HTTPField.Name("Idempotency-Key") { headers[name] = idempotencyKey }
        var uri = "/stripe/v1/" + path
        var body: ByteBuffer?
        if method == .get {
            if !encoded.isEmpty { uri += "?" + encoded }
        } else {
            headers[.contentType] = "application/x-www-form-urlencoded"
            body = ByteBuffer(string: encoded)
        }
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: body)
        let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
        return (Int(response.status.code), json, response.headers)
    }

    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Sets the test prices: a one-time `price_gems` (499 usd) and a monthly `price_monthly` (999 usd).
    func stripePrices() async throws {
        let response = try await send(
            .put, "/sandbox/stripe/prices",
            json: [
                "prices": [
                    ["id": "price_gems", "product_name": "Gems", "unit_amount": 499, "currency": "usd"],
                    [
                        "id": "price_monthly", "product_name": "Monthly", "unit_amount": 999, "currency": "usd",
                        "recurring": ["interval": "month"],
                    ],
                ]
            ])
        #expect(response.status == .ok, "\(String(buffer: response.body))")
    }

    /// A new open Checkout Session of `price` (`payment` mode for a one-time price).
    func stripeSession(_ price: String = "price_gems", mode: String = "payment", customer: String? = nil)
        async throws -> String
    {
        var form = [
            ("mode", mode), ("line_items[0][price]", price), ("line_items[0][quantity]", "1"),
            ("success_url", "http://shop.example/ok?session={CHECKOUT_SESSION_ID}"),
            ("metadata[app_user_id]", "ada"), ("subscription_data[metadata][app_user_id]", "ada"),
        ]
        if mode == "payment" { form.removeLast() }
        if let customer { form.append(("customer", customer)) }
        let (status, json, _) = try await stripe(.post, "checkout/sessions", form)
        #expect(status == 200, "\(json)")
        return try #require(json["id"] as? String)
    }

    /// Pays a session through the control; the status and the answer.
    @discardableResult
    func stripePay(_ session: String, card: String = "4242424242424242") async throws -> (Int, [String: Any]) {
        let response = try await send(.post, "/sandbox/stripe/checkout/\(session)/pay", json: ["card": card])
        return (Int(response.status.code), try object(response))
    }

    /// Registers the test prices and subscribes to `price_monthly` through Checkout, paying with `card`: the paid
    /// session as Stripe's API reads it (its `subscription` and `customer`).
    func stripeSubscription(card: String = "4242424242424242") async throws -> [String: Any] {
        try await stripePrices()
        let session = try await stripeSession("price_monthly", mode: "subscription")
        try await stripePay(session, card: card)
        return try await stripe(.get, "checkout/sessions/\(session)").json
    }

    /// POSTs a Stripe control; the status and the answer.
    @discardableResult
    func stripeControl(_ path: String, _ json: [String: Any] = [:]) async throws -> (Int, [String: Any]) {
        let response = try await send(.post, "/sandbox/stripe/" + path, json: json)
        return (Int(response.status.code), try object(response))
    }
}
