import AsyncHTTPClient
import Foundation
import NIOCore
import ShopkeeperTestSupport
import Testing

/// `POST /v1/customers/{user}/portal`: a link to the sandbox's Stripe customer portal for the Stripe customer behind
/// the customer's web purchases, read from Stripe through the real verifier; the purchases' owner is Shopkeeper's
/// (a redemption moves them, and the portal with them).
@Suite struct StripePortalEndToEndTests {
    static let returnURL = "https://shop.example/account"

    func portal(_ stripe: StripeWorld, _ user: String, returnURL: String = returnURL) async throws
        -> StoreWorld.Answer
    {
        try await stripe.world.verifier(.POST, "/v1/customers/\(user)/portal", ["return_url": returnURL])
    }

    /// The page at `url`: its status and text.
    static func page(_ url: String) async throws -> (Int, String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    @Test func aSubscriberGetsTheirPortalAndSomeoneWhoNeverBoughtOnStripeDoesNot() async throws {
        try await StripeWorld.run { stripe in
            let paid = try await stripe.buy("ana", product: "club_monthly")
            let subscription = try #require(paid["subscription"] as? String, "\(paid.json)")
            _ = try await stripe.customer("ana") { StripeWorld.active($0, "club") }

            let opened = try await portal(stripe, "ana")
            #expect(opened.status == 201, "\(opened.json)")
            #expect(opened.headers.first(name: "cache-control") == "no-store")
            let url = try #require(opened["portal_url"] as? String, "\(opened.json)")
            #expect(url.hasPrefix(stripe.world.sandbox.baseURL + "/stripe/portal/bps_"), "\(url)")
            // The portal opens at the sandbox, for the customer who paid: their subscription, and the way back.
            let (status, page) = try await Self.page(url)
            #expect(status == 200)
            #expect(page.contains(subscription), "\(page)")
            #expect(page.contains(Self.returnURL), "\(page)")
            let again = try await portal(stripe, "ana")
            #expect(again["portal_url"] as? String == url, "the same request within five minutes: the same session")

            let stranger = try await portal(stripe, "ben")
            #expect(stranger.status == 409, "\(stranger.json)")
            #expect(stranger.code == "no_stripe_customer")
            let invalid = try await portal(stripe, "ana", returnURL: "javascript:alert(1)")
            #expect(invalid.status == 422, "\(invalid.json)")
        }
    }

    @Test func aRedeemedPurchaseOpensItsNewOwnersPortal() async throws {
        try await StripeWorld.run { stripe in
            let paid = try await stripe.buy("web_visitor", product: "garden_extra")
            #expect(paid.status == 200, "\(paid.json)")
            _ = try await stripe.customer("web_visitor") { StripeWorld.active($0, "garden") }
            let redeemed = try await stripe.redeem(from: "web_visitor", to: "app_user")
            #expect(redeemed.status == 200, "\(redeemed.json)")

            let owner = try await portal(stripe, "app_user")
            #expect(owner.status == 201, "\(owner.json)")
            let former = try await portal(stripe, "web_visitor")
            #expect(former.status == 409, "\(former.json)")
        }
    }
}
