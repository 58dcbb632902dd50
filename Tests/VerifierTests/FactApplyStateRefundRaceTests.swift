import Foundation
import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// A refund recorded while its purchase's apply is under way: the two applies reach entitlements in the wrong order
/// (the refund's news finds no owner yet, then the purchase is granted as it was before its refund), and the
/// verifier must not call the refund done.
@Suite("A refund that races its purchase's apply")
struct FactApplyStateRefundRaceTests {
    /// Applies `transactions` through entitlements' internal apply as the verifier does (`nil` user: store news).
    static func apply(_ harness: VerifierHarness, _ transactions: [StoreTransaction], for user: String?) async throws
        -> [String]
    {
        let request = ApplyRequest(
            appUserID: user, deviceID: user.map { "\($0)-phone" }, source: user == nil ? .notification : .purchase,
            transactions: transactions)
        let answer = try await harness.send(
            to: harness.entitlements, .post, "/internal/v1/apply", json: try JSONBody.encode(request))
        #expect(answer.status == .ok, "\(answer.text)")
        let response = try JSONBody.decode(ApplyResponse.self, from: Data(answer.text.utf8))
        return response.outcomes.map(\.outcome.rawValue)
    }

    /// The customer's refund count and whether entitlement `garden` is active, as entitlements has them.
    static func customer(_ harness: VerifierHarness, _ user: String) async throws -> (refunds: Int, active: Bool) {
        let answer = try await harness.send(to: harness.entitlements, .get, "/v1/customers/\(user)")
        let info = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any] ?? [:]
        let garden = (info["entitlements"] as? [String: [String: Any]])?["garden"]
        return (info["refund_count"] as? Int ?? -1, garden?["active"] as? Bool == true)
    }

    @Test("The purchase's apply, finishing after its refund was recorded, leaves the refund to the background retry")
    func purchaseAppliedAfterItsRefundWasRecorded() async throws {
        try await VerifierHarness.run(environment: ["SHOPKEEPER_APPLY_RETRY_SECONDS": "0.2"]) { harness in
            try await harness.importCatalog([
                [
                    "product_id": "garden_extra", "type": "non_consumable", "entitlements": ["garden"],
                    "review_state": "approved", "cleared_for_sale": true, "free": false, "default_locale": "en",
                    "store_product_ids": ["stripe": "price_garden_extra"],
                    "localizations": ["en": ["name": "Extra", "description": "Extra"]],
                ]
            ])
            try await TestDatabase.withClient { client in
                let repository = TransactionPostgresRepository(client: client, logger: Logger(label: "test"))
                let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
                let id = "pi_" + UUID().uuidString.prefix(12)
                let purchase = StoreTransaction(
                    store: .stripe, environment: .sandbox, transactionID: id, originalTransactionID: id,
                    storeProductID: "price_garden_extra", type: .nonConsumable, quantity: 1, purchaseDate: now,
                    priceMilliunits: 4990, currency: "EUR")
                var refund = purchase
                refund.revocationDate = now.addingTimeInterval(1)
                refund.revocationReason = .other

                // The purchase's event records it for its buyer...
                let bought = try await repository.record(
                    [VerifiedFact(transaction: purchase, proofKind: .notification, rawProof: "cs_1")],
                    appID: harness.appID, presenter: Presenter(appUserID: "buyer", deviceID: nil), attempt: nil)
                // ...its refund's event finds it and records the refund, whose news reaches entitlements first:
                // nobody owns the purchase there yet.
                let refunded = try await repository.record(
                    [VerifiedFact(transaction: refund, proofKind: .notification, rawProof: "ch_1")],
                    appID: harness.appID, presenter: Presenter(appUserID: nil, deviceID: nil), attempt: nil)
                #expect(refunded.first?.revocationDate != nil)
                #expect(try await Self.apply(harness, refunded, for: nil) == ["not_owned"])
                await repository.markApplied(refunded, appID: harness.appID, for: nil)
                // Then the purchase's apply lands, granting the purchase as its event read it.
                #expect(try await Self.apply(harness, bought, for: "buyer") == ["granted"])
                await repository.markApplied(bought, appID: harness.appID, for: "buyer")
                #expect(try await Self.customer(harness, "buyer") == (0, true))

                // Neither apply closed the refund: the background retry applies the fact as recorded, refund included.
                let state = try await FactApplyStateTests.recorded(id, appID: harness.appID).2
                #expect(state == "pending")
                let after = try await eventually(timeout: .seconds(30), { try await Self.customer(harness, "buyer") }) {
                    $0.refunds == 1
                }
                #expect(after == (1, false))
                try await eventually("the refund is marked applied once entitlements has it") {
                    try await FactApplyStateTests.recorded(id, appID: harness.appID).2 == "applied"
                }
                // Once applied, it stays applied: the sweep and the retry leave it alone, and the refund counts once.
                _ = try await repository.sweepApplied()
                let claimed = try await repository.claimPending(limit: 10_000, base: .seconds(1))
                #expect(!claimed.contains { $0.transaction.transactionID == id })
                #expect(try await Self.customer(harness, "buyer") == (1, false))
            }
        }
    }
}
