import Foundation
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite("Redeeming a web purchase in the app")
struct RedemptionTests {
    static let issueTemplate = "/v1/customers/{app_user_id}/redemption-codes"
    static let redeemTemplate = "/v1/customers/{app_user_id}/redeem"

    /// The fixtures' products, sold on the web too (Stripe prices `price_<product>`).
    static let products: [Product] = EntitlementsFixtures.products.map { product in
        var product = product
        product.storeProductIDs[.stripe] = "price_\(product.productID)"
        return product
    }

    /// A web purchase (store `stripe`) of `product`.
    static func webPurchase(_ product: String, original: String? = nil) -> StoreTransaction {
        var transaction = EntitlementsFixtures.transaction(
            "pi_\(UUID().uuidString.prefix(12))", product: product, original: original, store: .stripe)
        transaction.storeProductID = "price_\(product)"
        return transaction
    }

    /// A new anonymous id, as the web client and ShopkeeperKit make them.
    static func anonymous() -> String { "anon_\(UUID().uuidString.lowercased())" }

    @Test("A code moves the web visitor's purchases to the app's customer, once, and the history shows it")
    func redeemsOnce() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let visitor = Self.anonymous()
            _ = try await harness.applied([Self.webPurchase("garden")], user: visitor, device: nil)
            _ = try await harness.applied([Self.webPurchase("seeds")], user: visitor, device: nil)
            #expect(try await harness.info(visitor).entitlements["extra_garden"]?.active == true)

            let code = try await harness.issuedCode(for: visitor)
            #expect(code.count == 23)
            // Read as typed: lower case, no hyphens.
            let typed = code.lowercased().replacingOccurrences(of: "-", with: "")
            let redeemed = try await harness.redeem(typed, as: "member-7")
            #expect(redeemed.status == .ok)
            #expect(try redeemed.violations(.post, Self.redeemTemplate) == [])
            let member = try TestJSON.decode(CustomerInfo.self, redeemed.body.readableBytesView)
            #expect(member.entitlements["extra_garden"]?.active == true)
            #expect(member.consumableBalances == ["seeds": 5])
            // No id was linked: the visitor's id keeps its own (now empty) customer.
            #expect(member.aliases == ["member-7"])
            let left = try await harness.info(visitor)
            #expect(left.entitlements["extra_garden"]?.active != true)
            #expect(left.consumableBalances["seeds"] ?? 0 == 0)
            #expect(try await harness.ledgerMismatches() == [])

            // The same customer again: the same answer, nothing moves again.
            let again = try await harness.redeem(code, as: "member-7")
            #expect(again.status == .ok)
            #expect(try await harness.ledgerLines("member-7", reason: "transfer_in") == [5])
            // Anyone else: refused, nothing moved.
            let other = try await harness.redeem(code, as: "member-8")
            #expect(other.status == .conflict)
            #expect(other.problemCode == "redemption_code_used")
            #expect(try other.violations(.post, Self.redeemTemplate) == [])
            #expect(try await harness.info("member-8").entitlements.isEmpty)

            let history = try await harness.history("member-7").json
            let events = try #require(history["events"] as? [[String: Any]])
            let redemptions = events.filter {
                $0["type"] as? String == "transfer"
                    && ($0["payload"] as? [String: Any])?["reason"] as? String == "redemption"
            }
            #expect(redemptions.count == 2)
            #expect((redemptions.first?["payload"] as? [String: Any])?["from_app_user_id"] as? String == visitor)
        }
    }

    @Test("A code of another app is not found; an unknown or malformed code neither")
    func otherApp() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let visitor = Self.anonymous()
            _ = try await harness.applied([Self.webPurchase("garden")], user: visitor, device: nil)
            let code = try await harness.issuedCode(for: visitor)
            let other = try await harness.otherApp(products: Self.products)
            for attempt in [code, "AAAAA-AAAAA-AAAAA-AAAAA", "not a code"] {
                let answer = try await other.redeem(attempt, as: "member")
                #expect(answer.status == .notFound)
                #expect(answer.problemCode == "redemption_code_not_found")
                #expect(try answer.violations(.post, Self.redeemTemplate) == [])
            }
            // Still valid in its own app.
            #expect(try await harness.redeem(code, as: "member").status == .ok)
        }
    }

    @Test("The public key issues codes for anonymous ids only; the secret key for any id")
    func boundary() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let named = try await harness.issue(for: "alice", kind: .public)
            #expect(named.status == .forbidden)
            #expect(named.problemCode == "secret_key_required")
            #expect(try named.violations(.post, Self.issueTemplate) == [])
            #expect(try await harness.issue(for: "alice", kind: .secret).status == .created)
            let anonymous = try await harness.issue(for: Self.anonymous(), kind: .public)
            #expect(anonymous.status == .created)
            #expect(try anonymous.violations(.post, Self.issueTemplate) == [])
            #expect(
                try await harness.count(
                    "SELECT count(*) FROM entitlements.redemption_codes WHERE app_id = \(harness.appID)") == 2)
        }
    }

    @Test("Nothing to redeem yet keeps the code valid; an expired code is refused")
    func emptyAndExpired() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let visitor = Self.anonymous()
            let code = try await harness.issuedCode(for: visitor)
            let early = try await harness.redeem(code, as: "member")
            #expect(early.status == .conflict)
            #expect(early.problemCode == "nothing_to_redeem")
            _ = try await harness.applied([Self.webPurchase("garden")], user: visitor, device: nil)
            #expect(try await harness.redeem(code, as: "member").status == .ok)

            let later = try await harness.issuedCode(for: visitor)
            _ = try await harness.applied([Self.webPurchase("pro_year")], user: visitor, device: nil)
            #expect(
                try await harness.count(
                    """
                    WITH expired AS (
                        UPDATE entitlements.redemption_codes SET expires_at = now() - interval '1 second'
                        WHERE app_id = \(harness.appID) AND redeemed_at IS NULL RETURNING 1)
                    SELECT count(*) FROM expired
                    """) == 1)
            let expired = try await harness.redeem(later, as: "member")
            #expect(expired.status == .gone)
            #expect(expired.problemCode == "redemption_code_expired")
            #expect(try expired.violations(.post, Self.redeemTemplate) == [])
        }
    }

    @Test("Twenty customers redeeming one code at once: exactly one receives the purchases")
    func race() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let visitor = Self.anonymous()
            _ = try await harness.applied([Self.webPurchase("garden")], user: visitor, device: nil)
            _ = try await harness.applied([Self.webPurchase("seeds")], user: visitor, device: nil)
            let code = try await harness.issuedCode(for: visitor)
            let statuses = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for index in 0..<20 {
                    group.addTask {
                        (index, try await harness.redeem(code, as: "racer-\(index)", atOnce: true).status.code)
                    }
                }
                var all: [(Int, Int)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            let winners = statuses.filter { $0.1 == 200 }
            #expect(winners.count == 1)
            #expect(statuses.filter { $0.1 == 409 }.count == 19)
            let winner = try #require(winners.first?.0)
            #expect(try await harness.info("racer-\(winner)").consumableBalances == ["seeds": 5])
            #expect(try await harness.ledgerMismatches() == [])
            #expect(
                try await harness.count(
                    """
                    SELECT count(*) FROM entitlements.ledger l JOIN entitlements.customers c USING (customer_id)
                    WHERE c.app_id = \(harness.appID) AND l.reason = 'transfer_in'
                    """) == 1)
        }
    }

    @Test("A renewal still naming the web visitor's id applies to the customer who redeemed it")
    func renewalAfterRedemption() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let visitor = Self.anonymous()
            let expires = Date().addingTimeInterval(86_400).rounded
            var first = Self.webPurchase("pro_monthly", original: "sub_redeemed")
            first.expiresDate = expires
            _ = try await harness.applied([first], user: visitor, device: nil, source: .notification)
            let code = try await harness.issuedCode(for: visitor)
            #expect(try await harness.redeem(code, as: "member").status == .ok)

            var renewal = Self.webPurchase("pro_monthly", original: "sub_redeemed")
            renewal.expiresDate = expires.addingTimeInterval(30 * 86_400)
            let applied = try await harness.apply([renewal], user: visitor, device: nil, source: .notification)
            #expect(applied.status == .ok)
            #expect(
                try await harness.count(
                    """
                    SELECT count(*) FROM entitlements.purchases p JOIN entitlements.aliases a USING (customer_id)
                    WHERE p.app_id = \(harness.appID) AND p.original_transaction_id = 'sub_redeemed'
                      AND a.app_user_id = 'member'
                    """) == 1)
        }
    }
}

extension Date {
    /// Whole seconds, as the database keeps them in these tests.
    fileprivate var rounded: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}

extension EntitlementsHarness {
    /// `POST /v1/customers/{user}/redemption-codes`.
    func issue(for user: String, kind: APIKeyKind = .public) async throws -> any HTTPAnswer {
        try await send(.post, "/v1/customers/\(user)/redemption-codes", kind: kind)
    }

    /// A new code for `user`'s web purchases (public key: `user` must be anonymous), requiring 201.
    func issuedCode(for user: String) async throws -> String {
        let answer = try await issue(for: user, kind: AppUserID.isAnonymous(user) ? .public : .secret)
        guard answer.status == .created, let code = try answer.json["code"] as? String else {
            throw HarnessError("issuing a code answered \(answer.status): \(String(buffer: answer.body))")
        }
        return code
    }

    /// `POST /v1/customers/{user}/redeem`.
    func redeem(_ code: String, as user: String, atOnce: Bool = false) async throws -> any HTTPAnswer {
        try await send(
            .post, "/v1/customers/\(user)/redeem", kind: .public, json: try TestJSON.encode(["code": code]),
            atOnce: atOnce)
    }
}
