import Foundation
import ShopkeeperTestSupport
import Testing

/// Stripe in the sales report, as the App Store and Google Play are: sales under store `stripe` in the currency Stripe
/// charged, and a refund counted once however many of Stripe's events take the same payment back (a refund then a
/// dispute of the same charge, a dispute opened then closed lost).
@Suite struct StripeReportEndToEndTests {
    /// The sales report of the days around now, by store (sandbox purchases: Stripe's test mode).
    func salesByStore(_ stripe: StripeWorld) async throws -> [[String: Any]] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let from = formatter.string(from: Date().addingTimeInterval(-86_400))
        let to = formatter.string(from: Date())
        let answer = try await stripe.world.call(
            stripe.world.entitlements, .GET,
            "/v1/admin/reports/sales?from=\(from)&to=\(to)&environment=sandbox&group_by=store", kind: .secret)
        #expect(answer.status == 200, "\(answer.json)")
        return (answer["rows"] as? [[String: Any]]) ?? []
    }

    /// The row of `store` and `currency`, with its figures as integers.
    static func row(_ rows: [[String: Any]], store: String, currency: String) -> [String: Int] {
        let row = rows.first { $0["store"] as? String == store && $0["currency"] as? String == currency } ?? [:]
        return row.compactMapValues { ($0 as? NSNumber)?.intValue }
    }

    @Test func stripeSalesShowByCurrencyAndEachTakenBackPaymentCountsOneRefund() async throws {
        try await StripeWorld.run { stripe in
            // ana: refunded, then the same charge disputed and the dispute lost.
            let ana = try await stripe.buy("ana", product: "garden_extra")
            let anaIntent = try #require(ana["payment_intent"] as? String, "\(ana.json)")
            _ = try await stripe.customer("ana") { StripeWorld.active($0, "garden") }
            let refund = try await stripe.stripe(.POST, "/v1/refunds", form: [("payment_intent", anaIntent)])
            #expect(refund.status == 200, "\(refund.json)")
            _ = try await stripe.customer("ana") { !StripeWorld.active($0, "garden") }
            try await disputeLost(stripe, intent: anaIntent)

            // ben: disputed, the dispute lost.
            let ben = try await stripe.buy("ben", product: "garden_extra")
            let benIntent = try #require(ben["payment_intent"] as? String, "\(ben.json)")
            _ = try await stripe.customer("ben") { StripeWorld.active($0, "garden") }
            try await disputeLost(stripe, intent: benIntent)

            // cat: a subscription in another currency, kept.
            let cat = try await stripe.buy("cat", product: "club_monthly")
            #expect(cat.status == 200, "\(cat.json)")
            _ = try await stripe.customer("cat") { StripeWorld.active($0, "club") }
            _ = try await stripe.allDelivered()
            try await stripe.notificationsSettled()

            for user in ["ana", "ben"] {
                let info = try await stripe.world.customerInfo(user)
                #expect(info["refund_count"] as? Int == 1, "\(user): \(info)")
                #expect(!StripeWorld.active(info, "garden"), "\(user): \(info)")
            }
            let rows = try await salesByStore(stripe)
            let euros = Self.row(rows, store: "stripe", currency: "EUR")
            #expect(euros["purchases"] == 2, "\(rows)")
            #expect(euros["revenue_milliunits"] == 5980, "\(rows)")
            #expect(euros["refunds"] == 2, "\(rows)")
            #expect(euros["refunded_milliunits"] == 5980, "\(rows)")
            let dollars = Self.row(rows, store: "stripe", currency: "USD")
            #expect(dollars["purchases"] == 1, "\(rows)")
            #expect(dollars["revenue_milliunits"] == 4990, "\(rows)")
            #expect(dollars["refunds"] == 0, "\(rows)")
        }
    }

    /// Disputes the charge of `intent` and closes the dispute lost, once the opening reached the customer.
    func disputeLost(_ stripe: StripeWorld, intent: String) async throws {
        let charge = try #require(
            try await stripe.stripe(.GET, "/v1/payment_intents/\(intent)")["latest_charge"] as? String)
        let dispute = try await stripe.world.sandbox(.POST, "/sandbox/stripe/charges/\(charge)/dispute")
        #expect(dispute.status == 200, "\(dispute.json)")
        let id = try #require(dispute["id"] as? String, "\(dispute.json)")
        _ = try await stripe.allDelivered()
        let closed = try await stripe.world.sandbox(.POST, "/sandbox/stripe/disputes/\(id)/close", ["status": "lost"])
        #expect(closed.status == 200, "\(closed.json)")
    }
}
