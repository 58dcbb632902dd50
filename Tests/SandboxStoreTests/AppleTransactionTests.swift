import Foundation
import ShopkeeperCore
import ShopkeeperStores
import Testing
import X509

@testable import SandboxStore

/// `POST /sandbox/apple/transactions`: what an app gets from StoreKit, signed so the verifier's production code
/// accepts it once it trusts the sandbox root, and only then.
@Suite struct AppleTransactionTests {
    @Test func aPurchaseVerifiesWithTheSandboxRootAndHasApplesFieldsAndTypes() async throws {
        try await SandboxHarness.run { sandbox in
            let token = "5f1c2a8e-0b7d-4c3e-9a61-2d4b8f7e6c10"
            let before = Date().appleMilliseconds
            let bought = try await sandbox.buyApple(["quantity": 3, "app_account_token": token.uppercased()])
            let verifier = try AppleSignedDataVerifier(trustedRoots: [try await sandbox.root()])
            let payload = try await verifier.verify(bought.signedTransaction, as: AppleTransactionPayload.self)
            #expect(payload.transactionId == bought.transactionId)
            #expect(payload.originalTransactionId == bought.transactionId)
            #expect(payload.bundleId == "com.example.garden" && payload.productId == "fertilizer")
            #expect(payload.type == "Consumable" && payload.quantity == 3)
            #expect(payload.appAccountToken == token)
            #expect(payload.environment == "Sandbox" && payload.storefront == "USA" && payload.storefrontId == "143441")
            #expect(payload.transactionReason == "PURCHASE" && payload.inAppOwnershipType == "PURCHASED")
            #expect(payload.webOrderLineItemId == nil && payload.subscriptionGroupIdentifier == nil)
            #expect((payload.signedDate ?? 0) >= before && (payload.purchaseDate ?? 0) >= before)
            #expect(payload.revocationDate == nil)

            // Apple's value types: ids are numeric strings, dates are integers (milliseconds).
            let raw = try jwsPayloadObject(bought.signedTransaction)
            let id = try #require(raw["transactionId"] as? String)
            #expect(!id.isEmpty && id.allSatisfy(\.isNumber))
            #expect(raw["purchaseDate"] is NSNumber && !(raw["purchaseDate"] is String))
            #expect(raw["price"] as? Int == 990 && raw["currency"] as? String == "USD")
        }
    }

    @Test func theRealAppleRootRefusesASandboxTransaction() async throws {
        try await SandboxHarness.run { sandbox in
            let bought = try await sandbox.buyApple()
            let production = try AppleSignedDataVerifier(trustedRoots: [try AppleRootCertificates.appleRootCAG3()])
            await #expect(throws: AppleSignedDataError.self) {
                _ = try await production.verify(bought.signedTransaction, as: AppleTransactionPayload.self)
            }
        }
    }

    @Test func anAutoRenewableSubscriptionAndItsRenewal() async throws {
        try await SandboxHarness.run { sandbox in
            let start = Date(timeIntervalSince1970: 1_900_000_000)
            let first = try await sandbox.buyApple([
                "product_id": "garden.monthly", "type": "Auto-Renewable Subscription", "period": "P1M",
                "purchase_date": "2030-03-17T17:46:40Z", "environment": "Production",
            ])
            let renewal = try await sandbox.buyApple([
                "product_id": "garden.monthly", "type": "Auto-Renewable Subscription",
                "original_transaction_id": first.transactionId, "purchase_date": "2030-04-17T17:46:40Z",
            ])
            let verifier = try AppleSignedDataVerifier(trustedRoots: [try await sandbox.root()])
            let one = try await verifier.verify(first.signedTransaction, as: AppleTransactionPayload.self)
            let two = try await verifier.verify(renewal.signedTransaction, as: AppleTransactionPayload.self)
            #expect(one.purchaseDate == start.appleMilliseconds)
            #expect(one.expiresDate == Date(timeIntervalSince1970: 1_902_678_400).appleMilliseconds)  // 2030-04-17
            #expect(one.webOrderLineItemId != nil && one.subscriptionGroupIdentifier != nil)
            #expect(one.environment == "Production" && one.transactionReason == "PURCHASE")
            #expect(two.originalTransactionId == first.transactionId && two.transactionId != first.transactionId)
            #expect(two.transactionReason == "RENEWAL" && two.environment == "Production")
            #expect(two.originalPurchaseDate == one.purchaseDate)
            #expect(two.subscriptionGroupIdentifier == one.subscriptionGroupIdentifier)
            #expect(two.webOrderLineItemId != one.webOrderLineItemId)
            // The renewal lasts as long as the period before it.
            #expect(
                (two.expiresDate ?? 0) - (two.purchaseDate ?? 0) == (one.expiresDate ?? 0) - (one.purchaseDate ?? 0))
        }
    }

    @Test func invalidPurchasesAreRefusedWithEveryProblemAtOnce() async throws {
        try await SandboxHarness.run { sandbox in
            let response = try await sandbox.send(
                .post, "/sandbox/apple/transactions",
                json: [
                    "bundle_id": "com.example.garden", "product_id": "monthly", "type": "Auto-Renewable Subscription",
                    "environment": "Xcode", "app_account_token": "not-a-uuid",
                ])
            #expect(response.status == .unprocessableContent)
            #expect(response.headers[.contentType] == "application/problem+json")
            let pointers = Set(
                (try sandbox.object(response)["errors"] as? [[String: Any]] ?? []).compactMap {
                    $0["pointer"] as? String
                })
            #expect(pointers == ["/environment", "/app_account_token", "/expires_date"])

            let renewal = try await sandbox.send(
                .post, "/sandbox/apple/transactions",
                json: [
                    "bundle_id": "com.example.garden", "product_id": "monthly", "type": "Auto-Renewable Subscription",
                    "original_transaction_id": "2000000000000001",
                ])
            #expect(renewal.status == .unprocessableContent)
            #expect(try sandbox.object(renewal)["code"] as? String == "original_transaction_not_found")
        }
    }

    @Test func refundAndRevokeSetRevocationOnce() async throws {
        try await SandboxHarness.run { sandbox in
            let bought = try await sandbox.buyApple()
            let refund = try await sandbox.send(
                .post, "/sandbox/apple/transactions/\(bought.transactionId)/refund", json: ["reason": 1])
            #expect(refund.status == .ok)
            let refunded = try sandbox.decode(AppleTransactionCreated.self, refund)
            let payload = try jwsPayloadObject(refunded.signedTransaction)
            #expect(payload["revocationReason"] as? Int == 1)
            #expect((payload["revocationDate"] as? Int64 ?? 0) > 0)
            let again = try await sandbox.send(.post, "/sandbox/apple/transactions/\(bought.transactionId)/revoke")
            #expect(again.status == .conflict)
            let unknown = try await sandbox.send(.post, "/sandbox/apple/transactions/1/refund")
            #expect(unknown.status == .notFound)
        }
    }

    @Test func thePKIAndThePurchasesSurviveARestartOnTheSameStateDirectory() async throws {
        let directory = SandboxHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let firstRoot = Box<String>()
        let bought = Box<AppleTransactionCreated>()
        let key = Box<AppleAPIKeyCreated>()
        try await SandboxHarness.run(stateDirectory: directory) { sandbox in
            firstRoot.value = String(buffer: try await sandbox.send(.get, "/sandbox/root.pem").body)
            bought.value = try await sandbox.buyApple()
            key.value = try await sandbox.appleKey()
        }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("pki.pem").path))
        try await SandboxHarness.run(stateDirectory: directory) { sandbox in
            let root = String(buffer: try await sandbox.send(.get, "/sandbox/root.pem").body)
            #expect(root == firstRoot.value && root.hasPrefix("-----BEGIN CERTIFICATE-----"))
            let transaction = try #require(bought.value)
            let apiKey = try #require(key.value)
            let response = try await sandbox.send(
                .get, "/apple/sandbox/inApps/v1/transactions/\(transaction.transactionId)",
                bearer: try AppleBearer.token(apiKey))
            #expect(response.status == .ok)
        }
        try await SandboxHarness.run { sandbox in
            let other = String(buffer: try await sandbox.send(.get, "/sandbox/root.pem").body)
            #expect(other != firstRoot.value)
        }
    }

    @Test func settingsRefuseProductionAndNeedNoDatabase() throws {
        #expect {
            _ = try SandboxStoreSettings.read(from: EnvironmentReader(["SHOPKEEPER_ENV": "production"]))
        } throws: { error in
            (error as? ConfigurationError)?.variable == "SHOPKEEPER_ENV"
        }
        let settings = try SandboxStoreSettings.read(from: EnvironmentReader(["DATABASE_URL": "mysql://nowhere"]))
        #expect(settings.service.port == 8090)
        #expect(settings.stateDirectory.path.hasSuffix(".shopkeeper/sandbox"))
        #expect {
            _ = try SandboxStoreSettings.read(from: EnvironmentReader(["SHOPKEEPER_SANDBOX_PUBLIC_URL": "ftp://x"]))
        } throws: { error in
            (error as? ConfigurationError)?.variable == "SHOPKEEPER_SANDBOX_PUBLIC_URL"
        }
    }
}

/// A value set inside a `@Sendable` test body and read after it.
final class Box<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
