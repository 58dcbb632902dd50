import Foundation
import PostgresNIO
import ShopkeeperTestSupport
import Testing

/// A web subscription redeemed in the app: its later renewals, Stripe still naming the web visitor in its metadata,
/// extend the app's customer (the subscriptions service's timeline and the customer info follow the new owner), and
/// the new owner may cancel it and open its portal.
@Suite struct StripeRedeemedSubscriptionEndToEndTests {
    @Test func aRedeemedSubscriptionRenewsForItsNewOwner() async throws {
        try await StripeWorld.run { stripe in
            let paid = try await stripe.buy("web_visitor", product: "club_monthly")
            let subscription = try #require(paid["subscription"] as? String, "\(paid.json)")
            _ = try await stripe.customer("web_visitor") { StripeWorld.active($0, "club") }
            let redeemed = try await stripe.redeem(from: "web_visitor", to: "app_user")
            #expect(redeemed.status == 200, "\(redeemed.json)")
            #expect(StripeWorld.active(redeemed.json, "club"), "\(redeemed.json)")
            let firstEnd = StripeWorld.subscription(redeemed.json)["expires_at"] as? String
            #expect(firstEnd != nil, "\(redeemed.json)")

            // A renewal on the sandbox's clock: Stripe's invoice names the subscription, its metadata the visitor.
            let extended = try await stripe.renew(subscription, for: "app_user", endingOtherThan: firstEnd)
            let state = StripeWorld.subscription(extended)
            if state["expires_at"] as? String == firstEnd {
                Issue.record("not renewed for its new owner: \(try await Self.records(of: subscription, in: stripe))")
            }
            #expect(state["original_transaction_id"] as? String == subscription, "\(extended)")
            #expect(state["expires_at"] as? String != firstEnd, "\(extended)")
            #expect(StripeWorld.active(extended, "club"), "\(extended)")
            _ = try await stripe.allDelivered()
            try await stripe.notificationsSettled()
            let visitor = try await stripe.world.customerInfo("web_visitor")
            #expect(!StripeWorld.active(visitor, "club"), "the renewal did not move it back: \(visitor)")
            #expect((visitor["subscriptions"] as? [[String: Any]])?.isEmpty ?? true, "\(visitor)")

            // The new owner manages it: its portal, and cancelling at the end of the period.
            let portal = try await stripe.world.verifier(
                .POST, "/v1/customers/app_user/portal", ["return_url": "https://shop.example/account"])
            #expect(portal.status == 201, "\(portal.json)")
            let cancelled = try await stripe.world.verifier(
                .POST, "/v1/customers/app_user/subscriptions/\(subscription)/cancel")
            #expect(cancelled.status == 200, "\(cancelled.json)")
            let info = try await stripe.customer("app_user") {
                StripeWorld.subscription($0)["will_renew"] as? Bool == false
            }
            #expect(StripeWorld.subscription(info)["will_renew"] as? Bool == false, "\(info)")
            #expect(StripeWorld.active(info, "club"))
            let stranger = try await stripe.world.verifier(
                .POST, "/v1/customers/someone_else/subscriptions/\(subscription)/cancel")
            #expect(stranger.status == 404, "\(stranger.json)")
        }
    }

    /// What the database holds of the subscription (its timeline, its purchase and transactions, the customers'
    /// stored info), to tell why a renewal did not show.
    static func records(of subscription: String, in stripe: StripeWorld) async throws -> String {
        let statements = [
            "SELECT expires_at::text || ' revision ' || revision::text FROM subscriptions.subscriptions",
            "SELECT customer_id::text || ' ' || coalesce(expires_date::text, '-') FROM entitlements.purchases",
            "SELECT transaction_id || ' ' || customer_id::text || ' ' || coalesce(expires_date::text, '-')"
                + " FROM entitlements.transactions",
            "SELECT customer_id::text || ' ' || app_user_id FROM entitlements.aliases",
            "SELECT customer_id::text || ' stamp ' || coalesce(subscriptions_stamp::text, '-')"
                + " FROM entitlements.customer_documents",
        ]
        return try await TestDatabase.withClient(stripe.database) { client in
            var lines: [String] = []
            for sql in statements {
                let filtered =
                    sql.contains("aliases") || sql.contains("documents")
                    ? sql : sql + " WHERE original_transaction_id = '\(subscription)'"
                for try await value in try await client.query(PostgresQuery(unsafeSQL: filtered)).decode(String.self) {
                    lines.append(value)
                }
                lines.append("--")
            }
            return lines.joined(separator: "\n")
        }
    }
}
