import Foundation
import HummingbirdTesting
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// `POST /sandbox/apple/app-transactions`: StoreKit 2's `AppTransaction`, one per customer, whose id the customer's
/// transactions and renewal infos carry.
@Suite struct AppTransactionTests {
    /// The answer of `POST /sandbox/apple/app-transactions` (dates in ISO 8601).
    static func created(_ response: TestResponse) throws -> AppleAppTransactionCreated {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(AppleAppTransactionCreated.self, from: Data(response.body.readableBytesView))
    }

    @Test func aCustomerHasOneAppTransactionWhoseIdTheirPurchasesCarry() async throws {
        try await SandboxHarness.run { sandbox in
            let token = "0a6e9d52-7c1c-4d4e-9f7a-5d0c2b1e8f33"
            let first = try await sandbox.send(
                .post, "/sandbox/apple/app-transactions",
                json: [
                    "bundle_id": "com.example.garden", "app_account_token": token.uppercased(),
                    "original_application_version": "2", "original_purchase_date": "2024-03-01T10:00:00Z",
                ])
            #expect(first.status == .created, "\(String(buffer: first.body))")
            let made = try Self.created(first)
            let verifier = try AppleSignedDataVerifier(trustedRoots: [try await sandbox.root()])
            let payload = try await verifier.verify(made.signedAppTransaction, as: AppleAppTransactionPayload.self)
            #expect(payload.appTransactionId == made.appTransactionId && payload.bundleId == "com.example.garden")
            #expect(payload.receiptType == "Sandbox" && payload.originalApplicationVersion == "2")
            #expect(payload.applicationVersion == "2" && payload.originalPlatform == "iOS")
            #expect(payload.originalPurchaseDate == 1_709_287_200_000)
            #expect((payload.receiptCreationDate ?? 0) > 1_709_287_200_000 && payload.appAppleId != nil)
            #expect(payload.deviceVerification != nil && payload.deviceVerificationNonce != nil)

            // The same customer again: the same app transaction (a newer current version), signed afresh.
            let again = try await sandbox.send(
                .post, "/sandbox/apple/app-transactions",
                json: [
                    "bundle_id": "com.example.garden", "app_account_token": token, "application_version": "5",
                    "original_application_version": "4",
                ])
            #expect(again.status == .ok)
            let kept = try Self.created(again)
            #expect(kept.appTransactionId == made.appTransactionId)
            #expect(kept.originalApplicationVersion == "2" && kept.applicationVersion == "5")

            // The customer's purchases carry it; another customer's do not.
            let bought = try await sandbox.buyApple([
                "product_id": "garden.monthly", "type": "Auto-Renewable Subscription", "period": "P1M",
                "app_account_token": token,
            ])
            let transaction = try await verifier.verify(bought.signedTransaction, as: AppleTransactionPayload.self)
            #expect(transaction.appTransactionId == made.appTransactionId)
            let stranger = try await sandbox.buyApple(["app_account_token": UUID().uuidString])
            let other = try await verifier.verify(stranger.signedTransaction, as: AppleTransactionPayload.self)
            #expect(other.appTransactionId != nil && other.appTransactionId != made.appTransactionId)
            let production = try await sandbox.send(
                .post, "/sandbox/apple/app-transactions",
                json: ["bundle_id": "com.example.garden", "app_account_token": token, "environment": "Production"])
            #expect(production.status == .created)
            #expect(try Self.created(production).appTransactionId != made.appTransactionId)
        }
    }

    @Test func theAppTransactionSurvivesARestart() async throws {
        let directory = SandboxHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = UUID().uuidString.lowercased()
        let body: [String: String] = ["bundle_id": "com.example.garden", "app_account_token": token]
        let first = Box<AppleAppTransactionCreated>()
        try await SandboxHarness.run(stateDirectory: directory) { sandbox in
            var json: [String: Any] = body
            json["original_application_version"] = "7"
            let response = try await sandbox.send(.post, "/sandbox/apple/app-transactions", json: json)
            first.value = try Self.created(response)
        }
        try await SandboxHarness.run(stateDirectory: directory) { sandbox in
            let response = try await sandbox.send(.post, "/sandbox/apple/app-transactions", json: body)
            #expect(response.status == .ok)
            let again = try Self.created(response)
            #expect(again.appTransactionId == first.value?.appTransactionId)
            #expect(again.originalApplicationVersion == "7")
            #expect(again.originalPurchaseDate == first.value?.originalPurchaseDate)
        }
    }

    @Test(arguments: [
        (["app_account_token": "3b241101-e2bb-4255-8caf-4136c566a962"], "/bundle_id"),
        (["bundle_id": "com.example.garden", "app_account_token": "someone"], "/app_account_token"),
        (
            [
                "bundle_id": "com.example.garden", "app_account_token": "3b241101-e2bb-4255-8caf-4136c566a962",
                "original_platform": "Android",
            ], "/original_platform"
        ),
        (
            [
                "bundle_id": "com.example.garden", "app_account_token": "3b241101-e2bb-4255-8caf-4136c566a962",
                "environment": "Xcode",
            ], "/environment"
        ),
    ])
    func invalidRequestsAreRefusedByField(_ json: [String: String], _ pointer: String) async throws {
        try await SandboxHarness.run { sandbox in
            let response = try await sandbox.send(.post, "/sandbox/apple/app-transactions", json: json)
            #expect(response.status == .unprocessableContent || response.status == .badRequest)
            #expect(String(buffer: response.body).contains(pointer))
        }
    }
}
