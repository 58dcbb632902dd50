import Foundation
import ShopkeeperStores
import Testing
import X509

@testable import SandboxStore

extension SandboxHarness {
    /// The receipt of `receiptData`, read and verified as the verifier does, trusting this sandbox's root.
    func readReceipt(_ receiptData: String) async throws -> AppReceipt {
        try await AppReceiptReader(trustedRoots: [try await root()]).read(base64: receiptData)
    }

    /// `GET /sandbox/apple/transactions/{id}/receipt`.
    func freshReceipt(of transactionId: String) async throws -> String {
        let response = try await send(.get, "/sandbox/apple/transactions/\(transactionId)/receipt")
        #expect(response.status == .ok)
        return try decode(AppleReceiptData.self, response).receiptData
    }

    /// `POST /sandbox/apple/shared-secrets`.
    func sharedSecret(bundleID: String = "com.example.garden") async throws -> String {
        let response = try await send(.post, "/sandbox/apple/shared-secrets", json: ["bundle_id": bundleID])
        #expect(response.status == .created || response.status == .ok)
        let answer = try decode(AppleSharedSecret.self, response)
        #expect(answer.bundleId == bundleID)
        return answer.sharedSecret
    }
}

/// `receipt_data` of a purchase and `GET .../receipt`: the legacy app receipt of the customer, signed with the
/// sandbox chain; and the `verifyReceipt` shared secrets.
@Suite struct SandboxReceiptTests {
    static let alice = "5f1c2a8e-0b7d-4c3e-9a61-2d4b8f7e6c10"

    @Test func aPurchaseAnswersTheCustomersReceiptSignedWithTheSandboxChain() async throws {
        try await SandboxHarness.run { sandbox in
            let before = Date()
            let fertilizer = try await sandbox.buyApple([
                "quantity": 3, "app_account_token": Self.alice, "app_version": "1.2",
            ])
            _ = try await sandbox.buyApple(["app_account_token": UUID().uuidString])  // another customer
            _ = try await sandbox.buyApple()  // no token: a customer of its own
            let monthly = try await sandbox.buyApple([
                "product_id": "garden.monthly", "type": "Auto-Renewable Subscription", "period": "P1M",
                "app_account_token": Self.alice, "app_version": "1.3", "offer_type": 1,
                "offer_discount_type": "FREE_TRIAL",
            ])
            let receipt = try await sandbox.readReceipt(monthly.receiptData)
            #expect(receipt.bundleId == "com.example.garden" && receipt.receiptType == "ProductionSandbox")
            #expect(receipt.applicationVersion == "1.3" && receipt.originalApplicationVersion == "1.2")
            #expect(receipt.creationDate >= before.addingTimeInterval(-1) && receipt.creationDate <= Date())
            #expect(receipt.inAppPurchases.map(\.transactionId) == [fertilizer.transactionId, monthly.transactionId])

            let consumable = try #require(receipt.inAppPurchases.first)
            #expect(consumable.productId == "fertilizer" && consumable.quantity == 3)
            #expect(consumable.expiresDate == nil && consumable.webOrderLineItemId == nil)
            #expect(!consumable.isTrialPeriod && consumable.cancellationDate == nil)

            let subscription = try #require(receipt.inAppPurchases.last)
            let payload = try jwsPayloadObject(monthly.signedTransaction)
            #expect(subscription.productId == "garden.monthly")
            #expect(subscription.originalTransactionId == monthly.transactionId)
            #expect(subscription.isTrialPeriod && !subscription.isInIntroOfferPeriod)
            #expect(subscription.purchaseDate.appleMilliseconds == payload["purchaseDate"] as? Int64)
            #expect(subscription.expiresDate?.appleMilliseconds == payload["expiresDate"] as? Int64)
            #expect(subscription.webOrderLineItemId.map { String($0) } == payload["webOrderLineItemId"] as? String)

            // The first purchase's receipt held only what the customer had then.
            let earlier = try await sandbox.readReceipt(fertilizer.receiptData)
            #expect(earlier.inAppPurchases.map(\.transactionId) == [fertilizer.transactionId])
            #expect(earlier.applicationVersion == "1.2")
        }
    }

    @Test func withoutATokenTheReceiptHoldsThePurchaseAndProductionReceiptsSaySo() async throws {
        try await SandboxHarness.run { sandbox in
            _ = try await sandbox.buyApple(["environment": "Production"])
            let lone = try await sandbox.buyApple(["environment": "Production", "product_id": "extra_garden"])
            let receipt = try await sandbox.readReceipt(lone.receiptData)
            #expect(receipt.receiptType == "Production" && receipt.applicationVersion == "1.0")
            #expect(receipt.inAppPurchases.map(\.transactionId) == [lone.transactionId])
        }
    }

    @Test func offersBecomeTheirReceiptFlags() async throws {
        try await SandboxHarness.run { sandbox in
            let subscription: [String: Any] = [
                "product_id": "garden.monthly", "type": "Auto-Renewable Subscription", "period": "P1M",
            ]
            let intro = try await sandbox.buyApple(
                subscription.merging(["offer_type": 1, "offer_discount_type": "PAY_AS_YOU_GO"]) { $1 })
            let promotion = try await sandbox.buyApple(
                subscription.merging(["offer_type": 2, "offer_identifier": "comeback"]) { $1 })
            let plain = try await sandbox.buyApple(subscription)
            let introPurchase = try #require(try await sandbox.readReceipt(intro.receiptData).inAppPurchases.first)
            #expect(introPurchase.isInIntroOfferPeriod && !introPurchase.isTrialPeriod)
            let promoted = try #require(try await sandbox.readReceipt(promotion.receiptData).inAppPurchases.first)
            #expect(promoted.promotionalOfferIdentifier == "comeback" && !promoted.isInIntroOfferPeriod)
            let ordinary = try #require(try await sandbox.readReceipt(plain.receiptData).inAppPurchases.first)
            #expect(!ordinary.isTrialPeriod && !ordinary.isInIntroOfferPeriod)
            #expect(ordinary.promotionalOfferIdentifier == nil)
        }
    }

    @Test func aFreshReceiptShowsALaterRefundAndTheOldOneDoesNot() async throws {
        try await SandboxHarness.run { sandbox in
            let bought = try await sandbox.buyApple(["app_account_token": Self.alice])
            let refund = try await sandbox.send(.post, "/sandbox/apple/transactions/\(bought.transactionId)/refund")
            #expect(refund.status == .ok)
            let old = try await sandbox.readReceipt(bought.receiptData)
            #expect(old.inAppPurchases.first?.cancellationDate == nil)
            let fresh = try await sandbox.readReceipt(try await sandbox.freshReceipt(of: bought.transactionId))
            let cancelled = try #require(fresh.inAppPurchases.first)
            let revocation = try jwsPayloadObject(
                try sandbox.decode(AppleTransactionCreated.self, refund).signedTransaction)
            #expect(cancelled.cancellationDate?.appleMilliseconds == revocation["revocationDate"] as? Int64)
            #expect(fresh.creationDate >= old.creationDate)

            let unknown = try await sandbox.send(.get, "/sandbox/apple/transactions/1/receipt")
            #expect(unknown.status == .notFound)
        }
    }

    @Test func theRealAppleRootRefusesASandboxReceipt() async throws {
        try await SandboxHarness.run { sandbox in
            let bought = try await sandbox.buyApple()
            let reader = AppReceiptReader(trustedRoots: [try AppleRootCertificates.appleIncRoot()])
            await #expect(throws: AppReceiptError.self) { _ = try await reader.read(base64: bought.receiptData) }
        }
    }

    @Test func aBadAppVersionIsRefused() async throws {
        try await SandboxHarness.run { sandbox in
            let response = try await sandbox.send(
                .post, "/sandbox/apple/transactions",
                json: [
                    "bundle_id": "com.example.garden", "product_id": "fertilizer", "type": "Consumable",
                    "app_version": "1 0",
                ])
            #expect(response.status == .unprocessableContent)
            let pointers = (try sandbox.object(response)["errors"] as? [[String: Any]] ?? []).compactMap {
                $0["pointer"] as? String
            }
            #expect(pointers == ["/app_version"])
        }
    }

    @Test func aSharedSecretIsMadeOncePerBundleAndSurvivesARestart() async throws {
        let directory = SandboxHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = Box<String>()
        try await SandboxHarness.run(stateDirectory: directory) { sandbox in
            let created = try await sandbox.send(
                .post, "/sandbox/apple/shared-secrets", json: ["bundle_id": "com.example.garden"])
            #expect(created.status == .created)
            let secret = try sandbox.decode(AppleSharedSecret.self, created).sharedSecret
            #expect(secret.count == 32 && secret.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            let again = try await sandbox.send(
                .post, "/sandbox/apple/shared-secrets", json: ["bundle_id": "com.example.garden"])
            #expect(again.status == .ok)
            #expect(try sandbox.decode(AppleSharedSecret.self, again).sharedSecret == secret)
            #expect(try await sandbox.sharedSecret(bundleID: "com.example.other") != secret)
            let invalid = try await sandbox.send(
                .post, "/sandbox/apple/shared-secrets", json: ["bundle_id": "not a bundle"])
            #expect(invalid.status == .unprocessableContent)
            first.value = secret
        }
        try await SandboxHarness.run(stateDirectory: directory) { sandbox in
            let secret = try await sandbox.sharedSecret()
            #expect(secret == first.value)
        }
    }

    /// A state file written before shared secrets existed still loads.
    @Test func aStateFileWithoutSharedSecretsLoads() throws {
        let snapshot = SandboxSnapshot()
        var object = try #require(
            try JSONSerialization.jsonObject(with: try JSONEncoder().encode(snapshot)) as? [String: Any])
        object["appleSharedSecrets"] = nil
        let data = try JSONSerialization.data(withJSONObject: object)
        let decoded = try JSONDecoder().decode(SandboxSnapshot.self, from: data)
        #expect(decoded == snapshot && decoded.appleSharedSecrets.count == 0)
    }
}
