import Crypto
import Foundation
import ShopkeeperTestSupport
import Testing

/// The verifier's App Store Server API client against the sandbox's, with Apple's JWT auth.
@Suite(.serialized) struct AppStoreServerAPITests {
    func buy(_ world: StoreWorld, environment: String = "Sandbox") async throws -> (id: String, jws: String) {
        let bought = try await world.sandbox(
            .POST, "/sandbox/apple/transactions",
            ["bundle_id": world.bundleID, "product_id": "garden", "type": "Non-Consumable", "environment": environment])
        return (
            try #require(bought["transaction_id"] as? String), try #require(bought["signed_transaction"] as? String)
        )
    }

    @Test func validateAsksAppleForTheCurrentStateOfATransaction() async throws {
        try await StoreWorld.run { world in
            try await world.configureApple(apiKey: true)
            let (id, jws) = try await buy(world)
            #expect(
                try await world.verifier(.POST, "/v1/purchases", ["app_user_id": "di", "signed_transaction": jws])
                    .status == 200)
            #expect(
                try await world.verifier(.POST, "/v1/receipts/validate", ["signed_transaction": jws])["status"]
                    as? String == "valid")

            try await world.sandbox(.POST, "/sandbox/apple/transactions/\(id)/refund", ["reason": 1])
            let validated = try await world.verifier(.POST, "/v1/receipts/validate", ["signed_transaction": jws])
            #expect(validated["status"] as? String == "revoked", "\(validated.json)")
            // The refund seen by validation ends the purchase at once for its owner.
            let customer = try await world.call(world.entitlements, .GET, "/v1/customers/di")
            #expect(customer["refund_count"] as? Int == 1, "\(customer.json)")
            let purchases = customer["non_subscription_purchases"] as? [[String: Any]] ?? []
            #expect(purchases.first?["revoked_at"] as? String != nil, "\(customer.json)")
            let calls = try await world.calls()
            // A Sandbox transaction: production said 4040010 once each time, then the sandbox answered.
            #expect(calls["apple.production.transactions"] == 2)
            #expect(calls["apple.sandbox.transactions"] == 2)
        }
    }

    @Test func supportFindsAnOrdersTransactionsAndTheirCustomerByTheOrderID() async throws {
        try await StoreWorld.run { world in
            try await world.configureApple(apiKey: true)
            let bought = try await world.sandbox(
                .POST, "/sandbox/apple/transactions",
                ["bundle_id": world.bundleID, "product_id": "garden", "type": "Non-Consumable"])
            let orderID = try #require(bought["order_id"] as? String)
            let transactionID = try #require(bought["transaction_id"] as? String)
            let jws = try #require(bought["signed_transaction"] as? String)

            // Before anyone presented it: the order's transaction, and no customer yet.
            let unclaimed = try await world.verifier(.GET, "/v1/admin/stores/apple/orders/\(orderID)", kind: .secret)
            #expect(unclaimed.status == 200, "\(unclaimed.json)")
            let listed = unclaimed["transactions"] as? [[String: Any]] ?? []
            #expect(listed.map { $0["transaction_id"] as? String } == [transactionID])
            #expect((unclaimed["customers"] as? [Any])?.isEmpty == true)

            #expect(
                try await world.verifier(.POST, "/v1/purchases", ["app_user_id": "gwen", "signed_transaction": jws])
                    .status == 200)
            let found = try await world.verifier(.GET, "/v1/admin/stores/apple/orders/\(orderID)", kind: .secret)
            let customers = found["customers"] as? [[String: Any]] ?? []
            #expect(customers.count == 1, "\(found.json)")
            #expect(customers.first?["app_user_ids"] as? [String] == ["gwen"])
            #expect(customers.first?["original_transaction_ids"] as? [String] == [transactionID])

            let unknown = try await world.verifier(.GET, "/v1/admin/stores/apple/orders/NOSUCHORDER", kind: .secret)
            #expect(unknown.status == 404)
            #expect(unknown["code"] as? String == "order_not_found")
            let odd = try await world.verifier(.GET, "/v1/admin/stores/apple/orders/not-an-order", kind: .secret)
            #expect(odd.status == 404)
            let publicKey = try await world.verifier(.GET, "/v1/admin/stores/apple/orders/\(orderID)")
            #expect(publicKey.status == 403)
            let otherStore = try await world.verifier(.GET, "/v1/admin/stores/google/orders/\(orderID)", kind: .secret)
            #expect(otherStore.status == 404)
            // The Apple settings' own route beside it still answers.
            #expect(try await world.verifier(.GET, "/v1/admin/stores", kind: .secret).status == 200)
            try await world.configureApple(apiKey: true)
        }
    }

    @Test func aKeyAppleDoesNotKnowIsACredentialsProblemNotAnInvalidProof() async throws {
        try await StoreWorld.run { world in
            try await world.configureApple(apiKey: true)
            let (_, jws) = try await buy(world)
            // A key the sandbox never issued, for the same issuer and key id format.
            let saved = try await world.verifier(
                .PUT, "/v1/admin/stores/apple",
                [
                    "bundle_id": world.bundleID,
                    "api_key": [
                        "issuer_id": "unknown-issuer", "key_id": "UNKNOWN123",
                        "private_key": P256.Signing.PrivateKey().pemRepresentation,
                    ],
                ],
                kind: .secret)
            #expect(saved.status == 200, "\(saved.json)")
            let validated = try await world.verifier(.POST, "/v1/receipts/validate", ["signed_transaction": jws])
            #expect(validated.status == 422)
            #expect(validated.code == "store_credentials_rejected")
        }
    }
}
