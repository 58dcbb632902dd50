import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

@testable import Verifier

@Suite("Restore: every proof the app holds, for one customer")
struct RestoreTests {
    @Test("Verifies each signed transaction, applies them all, reports the proofs that did not verify")
    func restoresSignedTransactions() async throws {
        try await VerifierHarness.run { harness in
            #expect(try await harness.configureApple().status == .ok)
            let first = try harness.signedTransaction()
            let second = try harness.signedTransaction(productID: "com.example.garden.pond")
            let foreign = try harness.signedTransaction(bundleID: "com.example.other")
            // Bought on the old phone under an anonymous id.
            #expect(try await harness.purchase(signedTransaction: first, user: "anon-old").status == .ok)

            let request = RestoreRequest(deviceID: "new-phone", signedTransactions: [first, second, foreign])
            let response = try await harness.send(
                .post, "/v1/customers/user-9/restore", kind: .public, json: try TestJSON.encode(request))
            #expect(response.status == .ok, "\(response.text)")
            let restored = try response.decode(RestoreResponse.self)
            #expect(restored.transactions.count == 2)
            #expect(
                restored.outcomes.map(\.outcome).sorted { $0.rawValue < $1.rawValue } == [
                    .transferred, .unknownProduct,
                ])
            #expect(restored.rejected.map(\.pointer) == ["/signed_transactions/2"])
            #expect(restored.rejected.first?.code == "wrong_bundle_id")
            #expect(restored.customer?.appUserID == "user-9")
            #expect(restored.customer?.nonSubscriptionPurchases.count == 2)

            // Restoring again changes nothing.
            let again = try await harness.send(
                .post, "/v1/customers/user-9/restore", kind: .public, json: try TestJSON.encode(request))
            #expect(
                try again.decode(RestoreResponse.self).outcomes.map(\.outcome) == [.alreadyApplied, .alreadyApplied])
        }
    }

    @Test("A restore without proofs, or with an empty one, is a 422 and writes nothing")
    func invalidRestore() async throws {
        try await VerifierHarness.run { harness in
            let none = try await harness.send(.post, "/v1/customers/user-9/restore", json: Data("{}".utf8))
            #expect(none.status == .unprocessableContent)
            let empty = try await harness.send(
                .post, "/v1/customers/user-9/restore", json: Data(#"{"signed_transactions":[""]}"#.utf8))
            #expect(empty.status == .unprocessableContent)
            let tokens = try await harness.send(
                .post, "/v1/customers/user-9/restore",
                json: Data(#"{"purchase_tokens":[{"purchase_token":"t","product_id":""}]}"#.utf8))
            #expect(tokens.status == .unprocessableContent)
        }
    }
}

@Suite("Apply state")
struct ApplyStateTests {
    @Test("A fact granted by the request is marked applied in the background, without a second apply")
    func sweptToApplied() async throws {
        try await VerifierHarness.run(environment: ["SHOPKEEPER_APPLY_RETRY_SECONDS": "0.2"]) { harness in
            #expect(try await harness.configureApple().status == .ok)
            let jws = try harness.signedTransaction()
            #expect(try await harness.purchase(signedTransaction: jws).status == .ok)
            let states = try await eventually(
                timeout: .seconds(10),
                {
                    try await TestDatabase.withClient { client in
                        var found: [String] = []
                        let rows = try await client.query(
                            "SELECT apply_state FROM verifier.transactions WHERE app_id = \(harness.appID)")
                        for try await state in rows.decode(String.self) { found.append(state) }
                        return found
                    }
                }, until: { $0 == ["applied"] })
            #expect(states == ["applied"])
            let events = try await TestDatabase.withClient { client in
                let rows = try await client.query(
                    "SELECT count(*)::int FROM entitlements.events WHERE app_id = \(harness.appID)")
                for try await count in rows.decode(Int.self) { return count }
                return -1
            }
            #expect(events == 1)
        }
    }
}
