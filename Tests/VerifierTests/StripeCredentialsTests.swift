import Foundation
import HummingbirdTesting
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// `PUT/GET/DELETE /v1/admin/stores/stripe`: the key and the signing secrets go in sealed and never come out.
@Suite struct StripeCredentialsTests {
    static let testKey = "sk_test_51Hx0000000000000000000000000000kEy9"
    static let secrets = ["whsec_0000000000000000000000000000first", "whsec_000000000000000000000000000second"]

    @Test func secretsAreSealedShownByLastFourAndRolledWithoutTheKey() async throws {
        try await VerifierHarness.run { harness in
            let saved = try await harness.configureStripe(["secret_key": Self.testKey, "webhook_secrets": Self.secrets])
            #expect(saved.status == .ok, "\(saved.text)")
            let view = try TestJSON.object(Data(saved.text.utf8))
            #expect(view["livemode"] as? Bool == false)
            #expect(view["environments"] as? [String] == ["sandbox"])
            #expect(view["secret_key_last4"] as? String == "kEy9")
            #expect(view["webhook_secrets_last4"] as? [String] == ["irst", "cond"])
            for response in [saved, try await harness.send(.get, "/v1/admin/stores")] {
                #expect(!response.text.contains("sk_test_"))
                #expect(!response.text.contains("whsec_"))
            }
            let listed = try TestJSON.object(Data(try await harness.send(.get, "/v1/admin/stores").text.utf8))
            #expect((listed["stripe"] as? [String: Any])?["secret_key_last4"] as? String == "kEy9")

            let sealed = try await TestDatabase.withClient { client in
                try await client.query(
                    "SELECT sealed FROM verifier.store_credentials WHERE app_id = \(harness.appID) AND store = 'stripe'"
                ).collect().first?.decode(Data.self)
            }
            let bytes = try #require(sealed)
            #expect(!String(decoding: bytes, as: UTF8.self).contains("sk_test_"))

            // Rolling the signing secret at Stripe: the new one alone, the key kept.
            let rolled = try await harness.configureStripe([
                "webhook_secrets": ["whsec_00000000000000000000000000000third"]
            ])
            #expect(rolled.status == .ok, "\(rolled.text)")
            let rolledView = try TestJSON.object(Data(rolled.text.utf8))
            #expect(rolledView["secret_key_last4"] as? String == "kEy9")
            #expect(rolledView["webhook_secrets_last4"] as? [String] == ["hird"])

            #expect(try await harness.send(.delete, "/v1/admin/stores/stripe").status == .noContent)
            #expect(try await harness.send(.delete, "/v1/admin/stores/stripe").status == .notFound)
            let afterDelete = try TestJSON.object(Data(try await harness.send(.get, "/v1/admin/stores").text.utf8))
            #expect(afterDelete["stripe"] == nil)
        }
    }

    /// Every invalid field is reported at once with its pointer, and nothing is stored.
    @Test func badInputIsRefusedFieldByField() async throws {
        try await VerifierHarness.run { harness in
            let noKey = try await harness.configureStripe(["webhook_secrets": [Self.secrets[0]]])
            #expect(noKey.status == .unprocessableContent)
            #expect(try Self.pointers(noKey) == ["/secret_key"])

            let bad = try await harness.configureStripe([
                "secret_key": "pk_test_publishable0000",
                "webhook_secrets": [Self.secrets[0], "not-a-secret", Self.secrets[1]],
            ])
            #expect(bad.status == .unprocessableContent)
            #expect(bad.headers[.contentType] == "application/problem+json")
            #expect(try Self.pointers(bad) == ["/secret_key", "/webhook_secrets", "/webhook_secrets/1"])

            let repeated = try await harness.configureStripe([
                "secret_key": Self.testKey, "webhook_secrets": [Self.secrets[0], Self.secrets[0]],
            ])
            #expect(try Self.pointers(repeated) == ["/webhook_secrets"])
            #expect(try await harness.send(.delete, "/v1/admin/stores/stripe").status == .notFound)

            let publicKey = try await harness.send(
                .put, "/v1/admin/stores/stripe", kind: .public,
                json: try JSONSerialization.data(withJSONObject: ["secret_key": Self.testKey]))
            #expect(publicKey.status == .forbidden)
        }
    }

    /// A live key is accepted only by a verifier that talks to Stripe's own API: it is never sent to the sandbox.
    @Test func liveKeysOnlyWithStripesOwnAPI() async throws {
        let live = "sk_live_51Hx00000000000000000000000000000Live"
        try await VerifierHarness.run(environment: ["SHOPKEEPER_STRIPE_API_URL": "http://127.0.0.1:9/stripe"]) {
            harness in
            let refused = try await harness.configureStripe(["secret_key": live, "webhook_secrets": [Self.secrets[0]]])
            #expect(refused.status == .unprocessableContent)
            #expect(try Self.pointers(refused) == ["/secret_key"])
            let test = try await harness.configureStripe([
                "secret_key": Self.testKey, "webhook_secrets": [Self.secrets[0]],
            ])
            #expect(test.status == .ok, "\(test.text)")
        }
        try await VerifierHarness.run { harness in
            let accepted = try await harness.configureStripe(["secret_key": live, "webhook_secrets": [Self.secrets[0]]])
            #expect(accepted.status == .ok, "\(accepted.text)")
            let view = try TestJSON.object(Data(accepted.text.utf8))
            #expect(view["livemode"] as? Bool == true)
            #expect(view["environments"] as? [String] == ["production"])
        }
    }

    static func pointers(_ response: any HTTPAnswer) throws -> [String] {
        let problem = try TestJSON.object(Data(response.text.utf8))
        return (problem["errors"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String }
    }
}

extension VerifierHarness {
    /// `PUT /v1/admin/stores/stripe` with `body`.
    func configureStripe(_ body: [String: Any]) async throws -> any HTTPAnswer {
        try await send(.put, "/v1/admin/stores/stripe", json: try JSONSerialization.data(withJSONObject: body))
    }
}
