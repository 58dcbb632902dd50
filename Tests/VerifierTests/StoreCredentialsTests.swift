import Crypto
import Foundation
import HummingbirdTesting
import ShopkeeperCore
import ShopkeeperTestSupport
import Testing

@testable import Verifier

@Suite struct StoreCredentialsTests {
    @Test func secretsAreSealedAtRestAndNeverReturned() async throws {
        try await VerifierHarness.run { harness in
            let key = P256.Signing.PrivateKey().pemRepresentation
            let saved = try await harness.configureApple([
                "app_apple_id": 1_234_567_890, "shared_secret": "shared-secret-value-0123456789",
                "api_key": ["issuer_id": "issuer-1", "key_id": "KEY123", "private_key": key],
            ])
            #expect(saved.status == .ok, "\(saved.text)")
            for response in [saved, try await harness.send(.get, "/v1/admin/stores")] {
                #expect(!response.text.contains("shared-secret-value"))
                #expect(!response.text.contains("PRIVATE KEY"))
                #expect(response.text.contains("KEY123"))
                #expect(response.text.contains(#""shared_secret_set":true"#))
            }
            let sealed = try await TestDatabase.withClient { client in
                try await client.query(
                    "SELECT sealed FROM verifier.store_credentials WHERE app_id = \(harness.appID)"
                ).collect().first?.decode(Data.self)
            }
            let bytes = try #require(sealed)
            #expect(!String(decoding: bytes, as: UTF8.self).contains("shared-secret-value"))
            #expect(bytes.count > 100)

            // A change without secrets keeps the stored ones.
            let renamed = try await harness.configureApple(["bundle_id": "com.example.renamed"])
            #expect(renamed.text.contains(#""shared_secret_set":true"#))
            #expect(renamed.text.contains("KEY123"))
        }
    }

    @Test func credentialsNeedTheSecretKeyAndValidInput() async throws {
        try await VerifierHarness.run { harness in
            let publicKeyAttempt = try await harness.send(
                .put, "/v1/admin/stores/apple", kind: .public, json: Data(#"{"bundle_id":"x"}"#.utf8))
            #expect(publicKeyAttempt.status == .forbidden)

            let badKey = try await harness.configureApple([
                "api_key": ["issuer_id": "i", "key_id": "k", "private_key": "not a key"]
            ])
            #expect(badKey.status == .unprocessableContent)
            #expect(badKey.text.contains(#"\/api_key\/private_key"#))

            #expect(try await harness.send(.delete, "/v1/admin/stores/apple").status == .notFound)
            #expect(try await harness.configureApple().status == .ok)
            let deleted = try await harness.send(.delete, "/v1/admin/stores/apple")
            #expect(deleted.status == .noContent, "\(deleted.text)")
        }
    }

    @Test func sealedCredentialsOpenOnlyWithTheirMasterKeyAndApp() throws {
        let box = SecretBox(masterKey: String(repeating: "k", count: 40), purpose: "store credentials")
        let sealed = try box.seal(Data("secret".utf8), context: "app_a/apple")
        #expect(try box.open(sealed, context: "app_a/apple", keyID: box.keyID) == Data("secret".utf8))
        #expect(throws: SecretBoxError.self) { try box.open(sealed, context: "app_b/apple", keyID: box.keyID) }
        let other = SecretBox(masterKey: String(repeating: "z", count: 40), purpose: "store credentials")
        #expect(throws: SecretBoxError.self) { try other.open(sealed, context: "app_a/apple", keyID: box.keyID) }
        #expect(other.keyID != box.keyID)
    }
}

@Suite struct MasterKeyTests {
    @Test func credentialsSealedUnderAnotherMasterKeyGiveAClearProblemNotAnInternalError() async throws {
        let appID = TestEnvironment.uniqueAppID()
        let first = ["SHOPKEEPER_MASTER_KEY": String(repeating: "a", count: 40)]
        try await VerifierHarness.run(appID: appID, environment: first) { (harness: VerifierHarness) async throws in
            #expect(try await harness.configureApple().status == .ok)
        }
        let second = ["SHOPKEEPER_MASTER_KEY": String(repeating: "b", count: 40)]
        try await VerifierHarness.run(appID: appID, environment: second) { (harness: VerifierHarness) async throws in
            let response = try await harness.send(.get, "/v1/admin/stores")
            #expect(response.status == .internalServerError)
            #expect(response.problemCode == "store_credentials_unreadable")
            #expect(response.text.contains("SHOPKEEPER_MASTER_KEY"))
            // Setting them again under the new key repairs the app.
            #expect(try await harness.configureApple().status == .ok)
            #expect(try await harness.send(.get, "/v1/admin/stores").status == .ok)
        }
    }
}
