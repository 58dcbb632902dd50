import Foundation
import ShopkeeperModels
import Testing

/// Customer info decoded and encoded again by Swift (the verifier's purchase and restore answers) still writes every
/// documented field, `null` for no value, as the entitlements service's own rendering does.
@Suite struct CustomerInfoEncodingTests {
    static let rendered = #"""
        {"aliases":["a"],"app_user_id":"a","consumable_balances":{},"first_seen":"2026-01-01T00:00:00Z",
         "last_seen":"2026-01-01T00:00:00Z","refund_count":0,"trial":{"state":"none"},
         "entitlements":{"pro":{"active":true,"environment":null,"expires_at":null,"product_id":null,
            "purchase_date":"2026-01-01T00:00:00Z","source":"promotional","store":null}},
         "non_subscription_purchases":[{"environment":"sandbox","original_transaction_id":"1","product_id":null,
            "purchase_date":"2026-01-01T00:00:00Z","quantity":1,"revocation_reason":null,"revoked_at":null,
            "store":"app_store","store_product_id":"x","transaction_id":"1","type":"unknown"}],
         "subscriptions":[{"active":false,"environment":"sandbox","expiration_reason":null,"expires_at":null,
            "grace_period_expires_at":null,"original_transaction_id":"2","period_type":"normal","product_id":null,
            "refunded_at":null,"renews_into_store_product_id":null,"revoked_at":null,"started_at":null,
            "state":"expired","store":"app_store","store_product_id":null,"type":"auto_renewable","will_renew":null}],
         "product_grants":[{"granted_at":"2026-01-01T00:00:00Z","product_id":"seeds","source":"free"}]}
        """#

    @Test func aRoundTripKeepsEveryFieldAndWritesNull() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let original = try #require(try JSONSerialization.jsonObject(with: Data(Self.rendered.utf8)) as? NSDictionary)
        let info = try decoder.decode(CustomerInfo.self, from: Data(Self.rendered.utf8))
        let again = try #require(try JSONSerialization.jsonObject(with: encoder.encode(info)) as? NSDictionary)
        #expect(again == original)
    }

    /// An entitlements replica of an earlier release renders no `product_grants` (a rolling deploy): it decodes as
    /// none.
    @Test func customerInfoWithoutProductGrantsDecodesAsNone() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var document = try #require(try JSONSerialization.jsonObject(with: Data(Self.rendered.utf8)) as? [String: Any])
        #expect(document.removeValue(forKey: "product_grants") != nil)
        let older = try JSONSerialization.data(withJSONObject: document)
        let info = try decoder.decode(CustomerInfo.self, from: older)
        #expect(info.productGrants.isEmpty)
        #expect(try decoder.decode(CustomerInfo.self, from: Data(Self.rendered.utf8)).productGrants.count == 1)
    }
}
