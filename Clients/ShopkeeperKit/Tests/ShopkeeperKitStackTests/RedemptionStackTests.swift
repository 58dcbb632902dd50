import Foundation
import Testing

@testable import ShopkeeperKit

/// Redeeming a web purchase's code in the app, against the real local stack.
@Suite(.enabled(if: Stack.available)) struct RedemptionStackTests {
    @Test func aCodeIsRedeemedThroughTheGatewayAndItsRefusalsHaveTheirCodes() async throws {
        let stack = try Stack.require()
        // A web visitor's anonymous id, and a code for it (issued as the web shop does, with the public key).
        let visitor = "anon_\(UUID().uuidString.lowercased())"
        let issued = try await stack.call(
            "POST", stack.gatewayURL.appendingPathComponent("v1/customers/\(visitor)/redemption-codes"),
            bearer: stack.publicKey)
        #expect(issued.status == 201, "\(String(decoding: issued.body, as: UTF8.self))")
        let code = try #require(
            (try JSONSerialization.jsonObject(with: issued.body) as? [String: Any])?["code"] as? String)

        let device = try stack.device()
        // The visitor bought nothing yet: the code stays valid and says so; a code nobody issued is not found.
        for (attempt, expected) in [
            (code, "nothing_to_redeem"), ("AAAAA-AAAAA-AAAAA-AAAAA", "redemption_code_not_found"),
        ] {
            do throws(ShopkeeperError) {
                _ = try await device.shopkeeper.redeem(code: attempt)
                Issue.record("no refusal, expected \(expected)")
            } catch {
                #expect(error.code == expected, "\(error)")
            }
        }
    }

    /// A web visitor buys through the sandbox's Stripe Checkout (the hosted page's pay control, over HTTP), gets a
    /// code, and the app's customer redeems it with the Kit: the entitlement is the app's now, not the visitor's.
    /// The same customer redeeming again gets the same info; another customer gets `redemption_code_used`.
    @Test func aStripePurchaseOnTheWebIsRedeemedInTheAppOnce() async throws {
        let stack = try Stack.require()
        let product = try await stack.createWebProduct()
        let visitor = "anon_\(UUID().uuidString.lowercased())"
        let session = try await stack.json(
            "POST", "v1/customers/\(visitor)/checkout", bearer: stack.publicKey,
            json: [
                "product_id": product, "success_url": "http://localhost/thanks?session_id={CHECKOUT_SESSION_ID}",
                "cancel_url": "http://localhost/shop",
            ])
        let sessionID = try #require(session["session_id"] as? String, "\(session)")
        try await stack.sandbox("POST", "sandbox/stripe/checkout/\(sessionID)/pay", json: ["card": "4242424242424242"])
        // Stripe's webhook reaches the gateway: the visitor owns it.
        let bought = try await eventually {
            let info = try await stack.json("GET", "v1/customers/\(visitor)", bearer: stack.publicKey)
            return ((info["entitlements"] as? [String: [String: Any]])?[product]?["active"] as? Bool) == true
        }
        #expect(bought, "the web purchase did not show for the visitor")
        let issued = try await stack.json(
            "POST", "v1/customers/\(visitor)/redemption-codes", bearer: stack.publicKey)
        let code = try #require(issued["code"] as? String, "\(issued)")

        let app = try stack.device()
        let redeemed = try await app.shopkeeper.redeem(code: code)
        #expect(redeemed.entitlements[product]?.active == true, "\(redeemed)")
        #expect(try await app.shopkeeper.customerInfo().entitlements[product]?.active == true)
        let left = try await stack.json("GET", "v1/customers/\(visitor)", bearer: stack.publicKey)
        #expect((left["entitlements"] as? [String: Any])?[product] == nil, "moved, not copied: \(left)")
        // Typed again by the same customer (lower case, spaces): the same info, nothing moves.
        let again = try await app.shopkeeper.redeem(code: code.lowercased().replacingOccurrences(of: "-", with: " "))
        #expect(again.entitlements[product]?.active == true)
        let other = try stack.device()
        do throws(ShopkeeperError) {
            _ = try await other.shopkeeper.redeem(code: code)
            Issue.record("another customer redeemed a used code")
        } catch {
            #expect(error.code == "redemption_code_used", "\(error)")
        }
        #expect(try await other.shopkeeper.customerInfo().entitlements[product] == nil)
    }
}

extension Stack {
    /// A new non-consumable of the demo app sold on the web only: a Stripe price the sandbox store sells (at 2.99
    /// EUR; `PUT /sandbox/stripe/prices` sets every price it sells, so the last test to call this decides) and the
    /// catalog product naming it.
    func createWebProduct() async throws -> String {
        let id = "kit_web_\(UUID().uuidString.prefix(8).lowercased())"
        let prices: [[String: Any]] = [
            ["id": "price_\(id)", "unit_amount": 299, "currency": "eur", "product_name": id]
        ]
        try await sandbox("PUT", "sandbox/stripe/prices", json: ["prices": prices])
        _ = try await admin(
            "PUT", "v1/admin/products/\(id)",
            json: [
                "product_id": id, "type": "non_consumable", "review_state": "approved", "cleared_for_sale": true,
                "store_product_ids": ["stripe": "price_\(id)"], "entitlements": [id], "default_locale": "en",
                "localizations": ["en": ["name": id]],
            ])
        return id
    }

    /// A gateway call's JSON object, which must be 2xx.
    func json(_ method: String, _ path: String, bearer: String, json body: Any? = nil) async throws -> [String: Any] {
        try await json(method, gatewayURL.appendingPathComponent(path), bearer: bearer, body: body)
    }

    /// A call's JSON object, which must be 2xx.
    func json(_ method: String, _ url: URL, bearer: String, body: Any?) async throws -> [String: Any] {
        let answer = try await call(method, url, bearer: bearer, json: body)
        try #require(
            (200...299).contains(answer.status),
            "\(method) \(url.path) answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        return (try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]) ?? [:]
    }
}
