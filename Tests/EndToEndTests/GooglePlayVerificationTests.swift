import Foundation
import ShopkeeperTestSupport
import Testing

/// Play tokens verified by the real verifier against the sandbox's Play Developer API.
@Suite(.serialized) struct GooglePlayVerificationTests {
    @Test func aPurchaseTokenIsVerifiedRecordedAndAcknowledgedAndAPendingOneIsNot() async throws {
        try await StoreWorld.run { world in
            try await world.configureGoogle()
            let bought = try await world.sandbox(
                .POST, "/sandbox/google/purchases",
                [
                    "package_name": world.packageName, "product_id": "coins_100", "type": "product", "quantity": 2,
                    "obfuscated_account_id": "ana",
                ])
            let token = try #require(bought["purchase_token"] as? String)
            let purchase = try await world.verifier(
                .POST, "/v1/purchases",
                ["app_user_id": "ana", "purchase_token": token, "product_id": "coins_100"])
            #expect(purchase.status == 200, "\(purchase.json)")
            let transaction = try #require((purchase["transactions"] as? [[String: Any]])?.first)
            #expect(transaction["store"] as? String == "play_store")
            #expect(transaction["environment"] as? String == "sandbox")
            #expect(transaction["quantity"] as? Int == 2)
            #expect(transaction["transaction_id"] as? String == bought["order_id"] as? String)
            #expect(transaction["obfuscated_account_id"] as? String == "ana")

            // Recorded, so acknowledged at Google.
            let calls = try await world.calls()
            #expect(calls["google.products.acknowledge"] == 1)
            #expect((calls["google.token"] ?? 0) >= 1)
            #expect(try await world.googleAccessTokensPresented() == 1)

            // The same token again: the same transaction, no second acknowledgement, the token reused.
            let again = try await world.verifier(
                .POST, "/v1/purchases", ["app_user_id": "ana", "purchase_token": token, "product_id": "coins_100"])
            #expect(
                (again["transactions"] as? [[String: Any]])?.first?["transaction_id"] as? String
                    == transaction["transaction_id"] as? String)
            #expect(try await world.calls()["google.products.acknowledge"] == 1)
            #expect(try await world.googleAccessTokensPresented() == 1)

            let pending = try await world.sandbox(
                .POST, "/sandbox/google/purchases",
                ["package_name": world.packageName, "product_id": "coins_100", "type": "product", "pending": true])
            let pendingToken = try #require(pending["purchase_token"] as? String)
            let refused = try await world.verifier(
                .POST, "/v1/purchases",
                ["app_user_id": "ana", "purchase_token": pendingToken, "product_id": "coins_100"])
            #expect(refused.status == 422)
            #expect(refused.code == "purchase_pending")
            try await world.sandbox(.POST, "/sandbox/google/purchases/\(pendingToken)/complete")
            let completed = try await world.verifier(
                .POST, "/v1/purchases",
                ["app_user_id": "ana", "purchase_token": pendingToken, "product_id": "coins_100"])
            #expect(completed.status == 200)

            let unknown = try await world.verifier(
                .POST, "/v1/purchases",
                ["app_user_id": "ana", "purchase_token": "no-such-token", "product_id": "coins_100"])
            #expect(unknown.code == "invalid_purchase_token")
        }
    }

    @Test func subscriptionsAndRefundsAndTestPurchasesRefusedInProductionOnlyApps() async throws {
        try await StoreWorld.run { world in
            try await world.configureGoogle()
            let token = try await world.buyGoogleSubscription()
            let verified = try await world.presentGoogleSubscription(token, for: "bo")
            let subscription = try #require((verified["transactions"] as? [[String: Any]])?.first)
            #expect(subscription["type"] as? String == "auto_renewable")
            #expect(subscription["expires_date"] != nil)
            #expect(try await world.calls()["google.subscriptions.acknowledge"] == 1)

            let product = try await world.sandbox(
                .POST, "/sandbox/google/purchases",
                ["package_name": world.packageName, "product_id": "garden", "type": "product"])
            let productToken = try #require(product["purchase_token"] as? String)
            let proof: [String: Any] = ["purchase_token": productToken, "product_id": "garden"]
            #expect(try await world.verifier(.POST, "/v1/receipts/validate", proof)["status"] as? String == "valid")
            try await world.sandbox(.POST, "/sandbox/google/purchases/\(productToken)/refund", [:])
            let validated = try await world.verifier(.POST, "/v1/receipts/validate", proof)
            #expect(validated["status"] as? String == "revoked")

            try await world.configureGoogle(environments: ["production"])
            let test = try await world.sandbox(
                .POST, "/sandbox/google/purchases",
                ["package_name": world.packageName, "product_id": "garden", "type": "product"])
            let refused = try await world.verifier(
                .POST, "/v1/purchases",
                [
                    "app_user_id": "bo", "purchase_token": test["purchase_token"] as? String ?? "",
                    "product_id": "garden",
                ])
            #expect(refused.code == "wrong_environment")
        }
    }

    @Test func aStoreOutageIsRetriedThenA503WithRetryAfterAndNothingRecordedAsInvalid() async throws {
        try await StoreWorld.run { world in
            try await world.configureGoogle()
            let bought = try await world.sandbox(
                .POST, "/sandbox/google/purchases",
                ["package_name": world.packageName, "product_id": "coins_100", "type": "product"])
            let token = try #require(bought["purchase_token"] as? String)
            let body: [String: Any] = ["app_user_id": "cy", "purchase_token": token, "product_id": "coins_100"]

            // Two failures: the third try answers.
            try await world.sandbox(
                .POST, "/sandbox/faults", ["endpoint": "google.products.get", "count": 2, "status": 503])
            #expect(try await world.verifier(.POST, "/v1/purchases", body).status == 200)
            #expect(try await world.calls()["google.products.get"] == 3)

            // More failures than tries: 503 with Retry-After, exactly three tries.
            let second = try await world.sandbox(
                .POST, "/sandbox/google/purchases",
                ["package_name": world.packageName, "product_id": "coins_100", "type": "product"])
            let secondBody: [String: Any] = [
                "app_user_id": "cy", "purchase_token": second["purchase_token"] as? String ?? "",
                "product_id": "coins_100",
            ]
            try await world.sandbox(.DELETE, "/sandbox/calls")
            try await world.sandbox(
                .POST, "/sandbox/faults", ["endpoint": "google.products.get", "count": 5, "status": 500])
            let outage = try await world.verifier(.POST, "/v1/purchases", secondBody)
            #expect(outage.status == 503)
            #expect(outage.code == "store_unavailable")
            #expect(outage.headers.first(name: "retry-after") != nil)
            #expect(try await world.calls()["google.products.get"] == 3)

            let outcomes = try await TestDatabase.withClient { client in
                try await client.query(
                    """
                    SELECT outcome, count(*)::int FROM verifier.verification_attempts
                    WHERE app_id = \(world.appID) GROUP BY outcome ORDER BY outcome
                    """
                ).collect().map { try $0.decode((String, Int).self) }
            }
            #expect(outcomes.map(\.0) == ["retryable", "verified"])
        }
    }
}
