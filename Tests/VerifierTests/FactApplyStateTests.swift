import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// Where each recorded fact stands with entitlements: the presenter it is applied for, and a state that agrees with
/// what entitlements did.
@Suite("Apply state of recorded facts")
struct FactApplyStateTests {
    /// The fact's presenter and apply state as recorded.
    static func recorded(_ transactionID: String, appID: String) async throws -> (String?, String?, String) {
        try await TestDatabase.withClient { client in
            let rows = try await client.query(
                """
                SELECT app_user_id, device_id, apply_state FROM verifier.transactions
                WHERE app_id = \(appID) AND transaction_id = \(transactionID)
                """)
            for try await row in rows.decode((String?, String?, String).self) { return row }
            throw VerifierTestError("no recorded fact \(transactionID)")
        }
    }

    @Test("A fact a store notification recorded first keeps the first customer who presents it, pending until applied")
    func notificationFirstKeepsThePresenter() async throws {
        // The harness migrates the schemas; the repository is then used as the purchase path and the
        // notification worker use it.
        try await VerifierHarness.run { harness in
            try await TestDatabase.withClient { client in
                let repository = TransactionPostgresRepository(client: client, logger: Logger(label: "test"))
                let id = "2000" + UUID().uuidString.prefix(12)
                let transaction = StoreTransaction(
                    store: .appStore, environment: .sandbox, transactionID: id, originalTransactionID: id,
                    storeProductID: "com.example.garden.seeds", type: .consumable, quantity: 1,
                    purchaseDate: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)),
                    priceMilliunits: 990, currency: "USD")
                let fact = VerifiedFact(transaction: transaction, proofKind: .signedTransaction, rawProof: "jws")
                let nobody = Presenter(appUserID: nil, deviceID: nil)

                // The store's notification arrives first; the background worker finds no owner to apply it to.
                _ = try await repository.record([fact], appID: harness.appID, presenter: nobody, attempt: nil)
                await repository.markApplied([transaction], appID: harness.appID, for: nil)
                #expect(try await Self.recorded(id, appID: harness.appID) == (nil, nil, "applied"))

                // The app's request comes next: its presenter is kept and the fact is pending again, so the
                // background retry grants it to them if the request does not finish.
                let alice = Presenter(appUserID: "alice", deviceID: "phone")
                _ = try await repository.record([fact], appID: harness.appID, presenter: alice, attempt: nil)
                #expect(try await Self.recorded(id, appID: harness.appID) == ("alice", "phone", "pending"))

                // A notification's apply that found no owner, finishing only now, does not mark it applied: it was
                // applied for nobody, and alice is still to be granted it. Nor does a refusal of someone else.
                await repository.markApplied([transaction], appID: harness.appID, for: nil)
                await repository.markRefused(
                    [transaction], appID: harness.appID, for: "bob", code: "already_owned_by_other_customer")
                #expect(try await Self.recorded(id, appID: harness.appID) == ("alice", "phone", "pending"))
                await repository.markApplied([transaction], appID: harness.appID, for: "alice")
                #expect(try await Self.recorded(id, appID: harness.appID).2 == "applied")

                // A later presenter, or a later notification, does not change it.
                let bob = Presenter(appUserID: "bob", deviceID: "tablet")
                _ = try await repository.record([fact], appID: harness.appID, presenter: bob, attempt: nil)
                _ = try await repository.record([fact], appID: harness.appID, presenter: nobody, attempt: nil)
                #expect(try await Self.recorded(id, appID: harness.appID) == ("alice", "phone", "applied"))
            }
        }
    }

    @Test("A consumable refused for a second presenter stays applied: the verifier agrees with entitlements")
    func refusedPresentationOfAnAppliedFact() async throws {
        try await VerifierHarness.run { harness in
            #expect(try await harness.configureApple().status == .ok)
            let id = "2000" + UUID().uuidString.prefix(12)
            let jws = try harness.signedTransaction(
                id: id, productID: "com.example.garden.seeds", type: .consumable)
            let first = try await harness.purchase(signedTransaction: jws, user: "buyer")
            #expect(first.status == .ok, "\(first.text)")
            let second = try await harness.purchase(signedTransaction: jws, user: "someone-else")
            #expect(second.status == .conflict)
            #expect(second.problemCode == "already_owned_by_other_customer")
            // Passed on from entitlements as it was answered, its title included.
            #expect(second.text.contains(#""title":"Conflict""#), "\(second.text)")
            // The refusal was of someone-else's presentation, not of the fact: it stays the buyer's, never
            // `refused` (the background sweep marks it `applied` once its grace has passed).
            let (user, _, state) = try await Self.recorded(id, appID: harness.appID)
            #expect(user == "buyer")
            #expect(state == "pending" || state == "applied")
        }
    }
}

extension FactApplyStateTests {
    @Test("A purchase the request applied is never applied again by the background retry, even once it is due")
    func appliedFactsAreNotClaimedAgain() async throws {
        try await VerifierHarness.run { harness in
            #expect(try await harness.configureApple().status == .ok)
            let id = "2000" + UUID().uuidString.prefix(12)
            let jws = try harness.signedTransaction(id: id, productID: "com.example.garden.seeds", type: .consumable)
            #expect(try await harness.purchase(signedTransaction: jws, user: "buyer").status == .ok)
            try await TestDatabase.withClient { client in
                // Due before a sweep marked it applied: the background retry's claim comes right after a sweep, and
                // facts come due in between.
                try await client.query(
                    """
                    UPDATE verifier.transactions SET next_apply_at = now() - interval '1 second'
                    WHERE app_id = \(harness.appID) AND transaction_id = \(id) AND apply_state = 'pending'
                    """
                ).collect()
                let repository = TransactionPostgresRepository(client: client, logger: Logger(label: "test"))
                let claimed = try await repository.claimPending(limit: 10_000, base: .seconds(1))
                #expect(!claimed.contains { $0.transaction.transactionID == id })
                try await eventually("the sweep marks it applied") {
                    _ = try await repository.sweepApplied()
                    return try await Self.recorded(id, appID: harness.appID).2 == "applied"
                }
                // No worker (this test's or the harness's own) claimed it to apply it again.
                let attempts = try await client.query(
                    """
                    SELECT apply_attempts FROM verifier.transactions
                    WHERE app_id = \(harness.appID) AND transaction_id = \(id)
                    """
                ).collect()
                #expect(try attempts.first?.decode(Int.self) == 0)
            }
        }
    }
}

/// A failed precondition of a verifier test.
struct VerifierTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
