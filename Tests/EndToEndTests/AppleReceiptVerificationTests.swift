import Foundation
import ShopkeeperCore
import ShopkeeperTestSupport
import Testing

/// Legacy receipts through the real verifier: read locally, then `verifyReceipt` (or the App Store Server
/// API) at the sandbox store, with Apple's status table, environment fallbacks and retries.
@Suite(.serialized) struct AppleReceiptVerificationTests {
    /// A purchase at the sandbox store and its customer's receipt.
    func buy(_ world: StoreWorld, environment: String = "Sandbox", appAppleID: Int? = nil, user: String = "eve")
        async throws
        -> (id: String, receipt: String)
    {
        var body: [String: Any] = [
            "bundle_id": world.bundleID, "product_id": "garden", "type": "Non-Consumable", "environment": environment,
            // Bought by the customer who presents the receipt (a token of another customer is refused).
            "app_account_token": AppAccountToken.uuid(forAppUserID: user).uuidString.lowercased(),
        ]
        if let appAppleID { body["app_apple_id"] = appAppleID }
        let bought = try await world.sandbox(.POST, "/sandbox/apple/transactions", body)
        return (try #require(bought["transaction_id"] as? String), try #require(bought["receipt_data"] as? String))
    }

    func sharedSecret(_ world: StoreWorld) async throws -> String {
        let answer = try await world.sandbox(.POST, "/sandbox/apple/shared-secrets", ["bundle_id": world.bundleID])
        return try #require(answer["shared_secret"] as? String)
    }

    func purchase(_ world: StoreWorld, receipt: String) async throws -> StoreWorld.Answer {
        try await world.verifier(.POST, "/v1/purchases", ["app_user_id": "eve", "receipt_data": receipt])
    }

    @Test func aSandboxReceiptFallsBackFromProductionWithExactlyOneExtraCall() async throws {
        try await StoreWorld.run { world in
            try await world.configureApple(apiKey: false, sharedSecret: try await sharedSecret(world))
            let (id, receipt) = try await buy(world)
            let answer = try await purchase(world, receipt: receipt)
            #expect(answer.status == 200, "\(answer.json)")
            let transactions = try #require(answer["transactions"] as? [[String: Any]])
            #expect(transactions.map { $0["transaction_id"] as? String } == [id])
            #expect(transactions.first?["environment"] as? String == "sandbox")
            let calls = try await world.calls()
            #expect(calls["apple.production.verifyReceipt"] == 1)
            #expect(calls["apple.sandbox.verifyReceipt"] == 1)
        }
    }

    @Test func twentyOhEightSendsTheReceiptToProductionOnceAndNoMore() async throws {
        try await StoreWorld.run { world in
            try await world.configureApple(
                apiKey: false, sharedSecret: try await sharedSecret(world), environments: ["sandbox"])
            let (_, receipt) = try await buy(world)
            try await world.sandbox(
                .POST, "/sandbox/faults",
                ["endpoint": "apple.sandbox.verifyReceipt", "count": 1, "apple_status": 21008])
            let answer = try await purchase(world, receipt: receipt)
            // Production then says 21007 for this sandbox receipt: a second switch is refused.
            #expect(answer.code == "wrong_environment")
            let calls = try await world.calls()
            #expect(calls["apple.sandbox.verifyReceipt"] == 1)
            #expect(calls["apple.production.verifyReceipt"] == 1)
        }
    }

    @Test func finalStatusesAreVerdictsWithTheirOwnCodeAfterOneCall() async throws {
        try await StoreWorld.run { world in
            try await world.configureApple(apiKey: false, sharedSecret: try await sharedSecret(world))
            let (_, receipt) = try await buy(world, environment: "Production")
            let table: [(Int, String)] = [
                (21000, "malformed_receipt"), (21003, "invalid_signature"), (21004, "shared_secret_mismatch"),
                (21010, "account_not_found"), (21001, "receipt_rejected"),
            ]
            for (status, code) in table {
                try await world.sandbox(.DELETE, "/sandbox/calls")
                try await world.sandbox(
                    .POST, "/sandbox/faults",
                    ["endpoint": "apple.production.verifyReceipt", "count": 1, "apple_status": status])
                let answer = try await purchase(world, receipt: receipt)
                #expect(answer.status == 422, "\(status): \(answer.json)")
                #expect(answer.code == code, "\(status)")
                #expect(try await world.calls()["apple.production.verifyReceipt"] == 1, "\(status)")
            }
            // Without faults the genuine production receipt is valid.
            #expect(try await purchase(world, receipt: receipt).status == 200)
        }
    }

    @Test func retryableStatusesAreRetriedAndRetriesStop() async throws {
        try await StoreWorld.run { world in
            try await world.configureApple(apiKey: false, sharedSecret: try await sharedSecret(world))
            let (_, receipt) = try await buy(world, environment: "Production")
            for status in [21002, 21005, 21009, 21199] {
                try await world.sandbox(.DELETE, "/sandbox/calls")
                try await world.sandbox(
                    .POST, "/sandbox/faults",
                    ["endpoint": "apple.production.verifyReceipt", "count": 2, "apple_status": status])
                #expect(try await purchase(world, receipt: receipt).status == 200, "\(status)")
                #expect(try await world.calls()["apple.production.verifyReceipt"] == 3, "\(status)")
            }
            try await world.sandbox(.DELETE, "/sandbox/calls")
            try await world.sandbox(
                .POST, "/sandbox/faults", ["endpoint": "apple.production.verifyReceipt", "count": 10, "status": 503])
            let outage = try await purchase(world, receipt: receipt)
            #expect(outage.status == 503)
            #expect(outage.code == "store_unavailable")
            #expect(outage.headers.first(name: "retry-after") != nil)
            #expect(try await world.calls()["apple.production.verifyReceipt"] == 3)
        }
    }

    @Test func aWrongSharedSecretAndAForgedReceiptAreRefused() async throws {
        try await StoreWorld.run { world in
            _ = try await sharedSecret(world)
            try await world.configureApple(apiKey: false, sharedSecret: "0123456789abcdef0123456789abcdef")
            let (_, receipt) = try await buy(world, environment: "Production")
            #expect(try await purchase(world, receipt: receipt).code == "shared_secret_mismatch")

            // One byte changed inside the signed content: refused here, Apple never asked.
            var bytes = try #require(Data(base64Encoded: receipt))
            bytes[bytes.count / 2] ^= 0x01
            try await world.sandbox(.DELETE, "/sandbox/calls")
            let forged = try await purchase(world, receipt: bytes.base64EncodedString())
            #expect(forged.status == 422)
            #expect(["invalid_signature", "malformed_receipt"].contains(forged.code ?? ""), "\(forged.json)")
            #expect((try await world.calls()["apple.production.verifyReceipt"] ?? 0) == 0)
            #expect(try await purchase(world, receipt: "bm90IGEgcmVjZWlwdA==").code == "malformed_receipt")
        }
    }

    @Test func withAnAPIKeyReceiptsGoThroughTheHistoryAndTheAppAppleIDMustMatch() async throws {
        try await StoreWorld.run { world in
            try await world.configureApple(apiKey: true)
            let (id, receipt) = try await buy(world, environment: "Production", appAppleID: 1_234_567)
            let answer = try await purchase(world, receipt: receipt)
            #expect(answer.status == 200, "\(answer.json)")
            #expect((answer["transactions"] as? [[String: Any]])?.first?["transaction_id"] as? String == id)
            let calls = try await world.calls()
            #expect(calls["apple.production.history"] == 1)
            #expect((calls["apple.production.verifyReceipt"] ?? 0) == 0)

            let (_, other) = try await buy(world, environment: "Production", appAppleID: 7_654_321, user: "zoe")
            let refused = try await purchase(world, receipt: other)
            #expect(refused.code == "wrong_app_apple_id", "\(refused.json)")

            // Only Production is held to the App Apple ID, as Apple's library checks it: a sandbox purchase signed
            // with another number is taken.
            let (sandboxID, sandboxReceipt) = try await buy(world, environment: "Sandbox", appAppleID: 7_654_321)
            let taken = try await purchase(world, receipt: sandboxReceipt)
            #expect(taken.status == 200, "\(taken.json)")
            #expect((taken["transactions"] as? [[String: Any]])?.first?["transaction_id"] as? String == sandboxID)
        }
    }
}
