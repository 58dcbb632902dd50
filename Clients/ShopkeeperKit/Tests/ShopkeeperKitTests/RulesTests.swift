import Foundation
import Testing

@testable import ShopkeeperKit

/// The rules the purchase flow and the client live by, one table each.
@Suite struct RulesTests {
    @Test(arguments: [
        (200, "", false), (304, "", false), (400, "malformed_json", false), (401, "invalid_api_key", false),
        (403, "device_limit_reached", false), (404, "product_not_found", false), (409, "insufficient_balance", false),
        (422, "invalid_signature", false), (408, "", true), (429, "rate_limited", true), (500, "internal_error", true),
        (502, "upstream_unavailable", true), (503, "store_unavailable", true), (504, "upstream_timeout", true),
    ])
    func onlyTooManyRequestsAndServerFailuresAreRetried(status: Int, code: String, retried: Bool) {
        #expect(RetryPolicy.isRetryable(status: status) == retried)
    }

    @Test func backoffDoublesIsCappedAndRetryAfterWins() {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: 1, maxDelay: 6)
        #expect(policy.delay(afterAttempt: 1, retryAfter: nil, unit: 1) == 1)
        #expect(policy.delay(afterAttempt: 2, retryAfter: nil, unit: 1) == 2)
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, unit: 0) == 2)  // 4 with equal jitter: 2...4
        #expect(policy.delay(afterAttempt: 9, retryAfter: nil, unit: 1) == 6)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 3, unit: 0) == 3)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 60, unit: 0) == 6)
        #expect(RetryPolicy.retryAfterSeconds("7") == 7)
        #expect(RetryPolicy.retryAfterSeconds("Wed, 21 Oct 2026 07:28:00 GMT") == nil)
        #expect(RetryPolicy.retryAfterSeconds(nil) == nil)
    }

    @Test(arguments: [
        // A verdict on the proof, or a purchase that will never be this customer's: finish it.
        (422, "invalid_signature", SubmissionVerdict.refused(code: "invalid_signature")),
        (422, "wrong_bundle_id", .refused(code: "wrong_bundle_id")),
        (422, "malformed_proof", .refused(code: "malformed_proof")),
        (403, "app_account_token_mismatch", .refused(code: "app_account_token_mismatch")),
        (403, "device_limit_reached", .refused(code: "device_limit_reached")),
        (403, "sandbox_not_accepted", .refused(code: "sandbox_not_accepted")),
        (409, "transaction_belongs_to_another_app", .refused(code: "transaction_belongs_to_another_app")),
        (409, "already_owned_by_other_customer", .refused(code: "already_owned_by_other_customer")),
        // Not judged, or about the app's setup or credentials, or not complete yet: keep it.
        (503, "store_unavailable", .keep), (503, "apply_pending", .keep), (503, "database_unavailable", .keep),
        (500, "internal_error", .keep), (502, "upstream_unavailable", .keep), (504, "upstream_timeout", .keep),
        (429, "rate_limited", .keep), (422, "store_not_configured", .keep), (422, "store_credentials_rejected", .keep),
        (422, "shared_secret_mismatch", .keep), (422, "purchase_pending", .keep), (422, "validation_failed", .keep),
        (401, "customer_token_expired", .keep), (403, "customer_token_mismatch", .keep),
        (401, "invalid_api_key", .keep), (400, "malformed_json", .keep), (413, "body_too_large", .keep),
    ])
    func aTransactionIsFinishedOnlyOnAVerdictThatCannotChange(status: Int, code: String, verdict: SubmissionVerdict) {
        #expect(SubmissionVerdict.forFailure(status: status, code: code) == verdict)
    }

    @Test func aBrokenConnectionKeepsTheTransaction() {
        #expect(SubmissionVerdict.forError(.transport("connection refused")) == .keep)
    }

    @Test func keptPurchasesBackOffFromFiveSecondsToAnHour() {
        #expect(LocalState.backoff(attempts: 1) == 5)
        #expect(LocalState.backoff(attempts: 2) == 10)
        #expect(LocalState.backoff(attempts: 30) == 3600)
    }

    /// The server's derivation (`Shared/ShopkeeperCore/AppAccountToken.swift`), checked against Python's
    /// `uuid.uuid5(UUID('6f9e2b43-1c5d-4a8e-9b17-3e52a4c0d961'), name)`.
    @Test(arguments: [
        ("alice", "fdec7792-6418-547d-9ed4-66d9e1df94d9"),
        ("user_81f3c2", "b27cc2b1-3e24-5be4-9be0-05d804c57624"),
    ])
    func appAccountTokenIsTheServersNameBasedUUID(appUserID: String, expected: String) {
        #expect(AppAccountToken.uuid(forAppUserID: appUserID).uuidString.lowercased() == expected)
    }

    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256Hasher.hex(of: Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256Hasher.hex(of: Data("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256Hasher.hex(of: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var hasher = SHA256Hasher()
        for _ in 0..<1000 { hasher.update(Data(repeating: 0x61, count: 1000)) }
        #expect(hasher.finalize().hexString == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func aFoundTransactionIsSentForTheUserWhoseTokenItCarries() {
        var state = LocalState.fresh(ids: .make())
        state.knownUserIDs += ["alice", "bob"]
        state.appUserID = "bob"
        let alices = DeviceTransaction(
            id: "1", storeProductID: "p", proof: .signedTransaction("x"),
            appAccountToken: AppAccountToken.uuid(forAppUserID: "alice"), productType: nil)
        #expect(state.buyer(of: alices) == "alice")
        var unknown = alices
        unknown.appAccountToken = UUID()
        #expect(state.buyer(of: unknown) == "bob")
        unknown.appAccountToken = nil
        #expect(state.buyer(of: unknown) == "bob")
    }

    @Test func aRestoreResultTellsRestoredFromOwnedByAnotherAccount() throws {
        let json = """
            {"app_user_id": "anon_b", "aliases": ["anon_a", "anon_b"], "first_seen": "2026-01-01T00:00:00Z",
             "last_seen": "2026-01-01T00:00:00Z", "refund_count": 0, "entitlements": {"p1": {"active": true,
             "expires_at": null, "product_id": "p1", "purchase_date": "2026-01-01T00:00:00Z", "store": "app_store",
             "environment": "sandbox", "source": "purchase"}}, "subscriptions": [], "trial": {"state": "none"},
             "non_subscription_purchases": [], "consumable_balances": {}, "product_grants": []}
            """
        let customer = try JSONCoding.decoder().decode(CustomerInfo.self, from: Data(json.utf8))
        func outcome(_ id: String, _ value: ServerValue) -> TransactionOutcome {
            TransactionOutcome(store: .appStore, transactionID: id, productID: "p\(id)", outcome: value)
        }
        let result = RestoreResult(
            customer: customer,
            outcomes: [
                outcome("1", "granted"), outcome("2", "owned_by_other_account"), outcome("3", "already_applied"),
                outcome("4", "transferred"), outcome("5", "unknown_product"), outcome("6", "revoked"),
            ])
        #expect(result.ownedByOtherAccount.map(\.transactionID) == ["2"])
        #expect(result.restored.map(\.transactionID) == ["1", "3", "4"])
        #expect(result.entitlements == customer.entitlements, "it reads like the customer info it carries")
        #expect(result.appUserID == customer.appUserID)
    }

    @Test func requestBodiesCarryExactlyTheProofsFields() throws {
        func json(_ value: some Encodable) throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: JSONCoding.encoder().encode(value)) as? [String: Any] ?? [:]
        }
        let signed = try json(
            PurchaseBody(proof: .signedTransaction("jws"), appUserID: "a", deviceID: "d", appVersion: "1.0"))
        #expect(signed["signed_transaction"] as? String == "jws")
        #expect(signed["app_user_id"] as? String == "a")
        #expect(signed.count == 4)
        let play = try json(ProofBody(proof: .playPurchase(token: "t", productID: "p", kind: .subscription)))
        #expect(play as NSDictionary == ["purchase_token": "t", "product_id": "p", "purchase_kind": "subscription"])
        let restore = try json(
            RestoreBody(
                proofs: [
                    .signedTransaction("a"), .signedTransaction("b"),
                    .playPurchase(token: "t", productID: "p", kind: .product),
                ],
                deviceID: "d", appVersion: nil))
        #expect(restore["signed_transactions"] as? [String] == ["a", "b"])
        #expect((restore["purchase_tokens"] as? [[String: Any]])?.count == 1)
        #expect(restore["receipt_data"] == nil)
    }

    @Test func pathSegmentsAreEncoded() {
        #expect(ShopkeeperAPI.segment("a/b c?") == "a%2Fb%20c%3F")
        #expect(ShopkeeperAPI.segment("user_81f3c2") == "user_81f3c2")
    }

    @Test func unknownValuesAndFieldsDecode() throws {
        let json = """
            {"state": "frozen_in_time", "product_id": null, "product_grants": [{"product_id": "x"}]}
            """
        let trial = try JSONCoding.decoder().decode(TrialInfo.self, from: Data(json.utf8))
        #expect(trial.state == "frozen_in_time")
    }
}
