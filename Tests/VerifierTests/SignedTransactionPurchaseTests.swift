import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

@testable import Verifier

@Suite struct SignedTransactionPurchaseTests {
    @Test func aGenuineTransactionIsVerifiedNormalizedAndRecordedOnce() async throws {
        try await VerifierHarness.run { harness in
            #expect(try await harness.configureApple().status == .ok)
            let jws = try harness.signedTransaction(id: "2000000000000001-\(harness.appID)")
            let first = try await harness.purchase(signedTransaction: jws)
            #expect(first.status == .ok, "\(first.text)")
            let response = try first.decode(PurchaseResponse.self)
            let transaction = try #require(response.transactions.first)
            #expect(response.transactions.count == 1)
            #expect(transaction.store == .appStore)
            #expect(transaction.environment == .sandbox)
            #expect(transaction.type == .nonConsumable)
            #expect(transaction.storeProductID == "com.example.garden.extra")
            #expect(transaction.priceMilliunits == 1990)
            #expect(transaction.currency == "USD")

            // The same proof again, even by another user: the same recorded transaction (which the default
            // transfer policy moves to that user).
            let again = try await harness.purchase(signedTransaction: jws, user: "user-2")
            let second = try again.decode(PurchaseResponse.self)
            #expect(second.transactions == response.transactions)
            #expect(second.outcomes.map(\.outcome) == [.transferred])
            #expect(second.customer?.appUserID == "user-2")
            #expect(second.customer?.nonSubscriptionPurchases.map(\.transactionID) == [transaction.transactionID])

            let rows = try await TestDatabase.withClient { client in
                try await client.query(
                    "SELECT count(*)::int, min(app_user_id) FROM verifier.transactions WHERE app_id = \(harness.appID)"
                ).collect().first?.decode((Int, String).self)
            }
            #expect(rows?.0 == 1)
            #expect(rows?.1 == "user-1")
            // The purchase keeps the app version of the request that first presented it.
            let version = try await TestDatabase.withClient { client in
                try await client.query(
                    """
                    SELECT app_version FROM entitlements.purchases
                    WHERE app_id = \(harness.appID) AND original_transaction_id = \(transaction.originalTransactionID)
                    """
                ).collect().first?.decode(String?.self)
            }
            #expect(version == "1.0")
        }
    }

    @Test func anAppVersionThatIsNoVersionIsRefusedBeforeAnythingIsVerified() async throws {
        try await VerifierHarness.run { harness in
            #expect(try await harness.configureApple().status == .ok)
            let jws = try harness.signedTransaction()
            for version in ["", String(repeating: "9", count: 65), "1.0\n2.0"] {
                let request = PurchaseRequest(
                    appUserID: "user-1", appVersion: version, proof: StoreProofFields(signedTransaction: jws))
                let answer = try await harness.send(
                    .post, "/v1/purchases", kind: .public, json: try TestJSON.encode(request))
                #expect(answer.status == .unprocessableContent, "\(version): \(answer.text)")
            }
            #expect(try await harness.recordedTransactionCount() == 0)
        }
    }

    @Test func fiftyConcurrentSubmissionsOfOneProofRecordItOnce() async throws {
        try await VerifierHarness.run { harness in
            #expect(try await harness.configureApple().status == .ok)
            let jws = try harness.signedTransaction()
            let statuses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, [StoreTransaction]).self) {
                group in
                for index in 0..<50 {
                    group.addTask {
                        let response = try await harness.purchase(
                            signedTransaction: jws, user: "racer-\(index)", atOnce: true)
                        let transactions =
                            response.status == .ok ? try response.decode(PurchaseResponse.self).transactions : []
                        return (response.status, transactions)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0.0 == .ok })
            #expect(statuses.allSatisfy { $0.1 == statuses[0].1 && $0.1.count == 1 })
            #expect(try await harness.recordedTransactionCount() == 1)
        }
    }

    @Test func aTransactionRecordedForAnotherAppIsAConflict() async throws {
        try await VerifierHarness.run { harness in
            let other = VerifierHarness(
                client: harness.client, appID: TestEnvironment.uniqueAppID(), chain: harness.chain,
                catalog: harness.catalog, entitlements: harness.entitlements)
            #expect(try await harness.configureApple().status == .ok)
            #expect(try await other.configureApple().status == .ok)
            let jws = try harness.signedTransaction()
            #expect(try await harness.purchase(signedTransaction: jws).status == .ok)
            let stolen = try await other.purchase(signedTransaction: jws)
            #expect(stolen.status == .conflict, "\(stolen.text)")
            #expect(stolen.problemCode == "transaction_belongs_to_another_app")
        }
    }

    @Test func proofsOfAnotherAppOrEnvironmentAreRefusedWithTheirOwnCode() async throws {
        try await VerifierHarness.run(environment: ["SHOPKEEPER_APPLE_ALLOW_LOCAL_ENVIRONMENTS": "false"]) { harness in
            #expect(try await harness.configureApple(["environments": ["production"]]).status == .ok)
            let cases: [(String, String)] = [
                (try harness.signedTransaction(environment: .production, bundleID: "com.other.app"), "wrong_bundle_id"),
                (try harness.signedTransaction(environment: .sandbox), "wrong_environment"),
                (try harness.signedTransaction(environment: .xcode), "wrong_environment"),
                (String(try harness.signedTransaction(environment: .production).dropLast(4)), "invalid_signature"),
                ("a.b", "malformed_proof"),
            ]
            for (jws, code) in cases {
                let response = try await harness.purchase(signedTransaction: jws)
                #expect(response.status == .unprocessableContent, "\(code): \(response.text)")
                #expect(response.problemCode == code)
            }
            let logged = try await TestDatabase.withClient { client in
                try await client.query(
                    """
                    SELECT count(*)::int FROM verifier.verification_attempts
                    WHERE app_id = \(harness.appID) AND outcome = 'invalid'
                    """
                ).collect().first?.decode(Int.self)
            }
            #expect(logged == cases.count)
            #expect(try await harness.recordedTransactionCount() == 0)
        }
    }

    @Test func aProofForAnAppWithoutCredentialsOrWithoutOneProofIsAClearError() async throws {
        try await VerifierHarness.run { harness in
            let unconfigured = try await harness.purchase(signedTransaction: try harness.signedTransaction())
            #expect(unconfigured.status == .unprocessableContent)
            #expect(unconfigured.problemCode == "store_not_configured")

            let none = try await harness.send(
                .post, "/v1/purchases", kind: .public, json: Data(#"{"app_user_id":"u"}"#.utf8))
            #expect(none.status == .unprocessableContent)
            #expect(none.problemCode == "validation_failed")

            let two = try await harness.send(
                .post, "/v1/purchases", kind: .public,
                json: Data(#"{"app_user_id":"u","signed_transaction":"x","receipt_data":"y"}"#.utf8))
            #expect(two.problemCode == "validation_failed")

            let broken = try await harness.send(.post, "/v1/purchases", kind: .public, json: Data("{".utf8))
            #expect(broken.status == .badRequest)
        }
    }

    @Test func validateTellsValidRevokedExpiredAndInvalid() async throws {
        try await VerifierHarness.run { harness in
            #expect(try await harness.configureApple().status == .ok)
            let now = Date()
            let cases: [(String, ProofStatus, String?)] = [
                (try harness.signedTransaction(), .valid, nil),
                (try harness.signedTransaction(revoked: now.addingTimeInterval(-5)), .revoked, nil),
                (
                    try harness.signedTransaction(type: .autoRenewable, expires: now.addingTimeInterval(-5)), .expired,
                    nil
                ),
                (
                    try harness.signedTransaction(type: .autoRenewable, expires: now.addingTimeInterval(3600)), .valid,
                    nil
                ),
                (try harness.signedTransaction(bundleID: "com.other"), .invalid, "wrong_bundle_id"),
            ]
            for (jws, status, code) in cases {
                let response = try await harness.validate(signedTransaction: jws)
                #expect(response.status == .ok, "\(response.text)")
                let answer = try response.decode(ReceiptValidationResponse.self)
                #expect(answer.status == status)
                #expect(answer.code == code)
            }
        }
    }

    @Test func aRevocationOnceRecordedIsKeptWhenTheOldProofComesBack() async throws {
        try await VerifierHarness.run { harness in
            #expect(try await harness.configureApple().status == .ok)
            let id = "2000" + UUID().uuidString.prefix(10)
            let original = try harness.signedTransaction(id: id)
            let refunded = try harness.signedTransaction(id: id, revoked: Date())
            #expect(try await harness.purchase(signedTransaction: original).status == .ok)
            let afterRefund = try await harness.purchase(signedTransaction: refunded).decode(PurchaseResponse.self)
            #expect(afterRefund.transactions.first?.revocationDate != nil)
            #expect(afterRefund.transactions.first?.revocationReason == .appIssue)
            let replayed = try await harness.purchase(signedTransaction: original).decode(PurchaseResponse.self)
            #expect(replayed.transactions.first?.revocationDate != nil)
            let validated = try await harness.validate(signedTransaction: original).decode(
                ReceiptValidationResponse.self)
            #expect(validated.status == .revoked)
        }
    }
}

extension VerifierHarness {
    /// How many transactions the verifier has recorded for the harness's app.
    func recordedTransactionCount() async throws -> Int? {
        try await TestDatabase.withClient { client in
            try await client.query("SELECT count(*)::int FROM verifier.transactions WHERE app_id = \(appID)")
                .collect().first?.decode(Int.self)
        }
    }
}
