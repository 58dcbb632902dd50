import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Restoring on a new install: purchases bound (by `appAccountToken`) to the old install's anonymous id come back to
/// the same person; purchases bound to an account that logged in stay there, and the answer says so.
@Suite struct AnonymousRestoreTests {
    static func anonymous() -> String { "anon_" + UUID().uuidString.lowercased() }
    static func token(_ user: String) -> String { AppAccountToken.uuid(forAppUserID: user).uuidString.lowercased() }

    static func restore(_ user: String, _ proofs: [String], in world: SignedPurchaseWorld) async throws
        -> TestResponse
    {
        try await world.send(
            .post, "/v1/customers/\(AppUserID.segment(user))/restore", bearer: world.app.publicKey.key, token: nil,
            json: try TestJSON.encode(RestoreRequest(deviceID: "new-phone", signedTransactions: proofs)))
    }

    static func info(_ user: String, in world: SignedPurchaseWorld) async throws -> CustomerInfo {
        let read = try await world.send(
            .get, "/v1/customers/\(AppUserID.segment(user))", bearer: world.app.secretKey.key, token: nil)
        return try read.decode(CustomerInfo.self)
    }

    @Test func anAnonymousBuyerRestoresOnANewInstallAsOneCustomer() async throws {
        try await SignedPurchaseWorld.run { world in
            let pk = world.app.publicKey.key
            // The old install buys a non-consumable and ten units, each bound to its anonymous id.
            let old = Self.anonymous()
            let pro = try world.signedTransaction(accountToken: Self.token(old))
            let units = try world.signedTransaction(consumable: true, accountToken: Self.token(old))
            for proof in [pro, units] {
                let bought = try await world.purchase(old, jws: proof, bearer: pk, token: nil)
                #expect(bought.status == .ok, "\(bought.text)")
            }
            // The new install (a new anonymous id) restores everything StoreKit hands it, the units too.
            let new = Self.anonymous()
            let restored = try await Self.restore(new, [pro, units], in: world)
            #expect(restored.status == .ok, "\(restored.text)")
            #expect(try restored.violations(.post, "/v1/customers/{app_user_id}/restore") == [])
            let answer = try restored.decode(RestoreResponse.self)
            #expect(answer.outcomes.allSatisfy { $0.outcome == .alreadyApplied }, "\(answer.outcomes)")
            // One customer under both ids: the purchase once, the units once.
            for id in [new, old] {
                let info = try await Self.info(id, in: world)
                #expect(Set(info.aliases) == [old, new])
                #expect(info.nonSubscriptionPurchases.filter { $0.productID == "pro" }.count == 1)
                #expect(info.consumableBalances["fertilizer"] == 10)
            }
            #expect(answer.customer?.consumableBalances["fertilizer"] == 10)
            // Restoring again changes nothing.
            let again = try await Self.restore(new, [pro, units], in: world)
            #expect(try again.decode(RestoreResponse.self).customer?.consumableBalances["fertilizer"] == 10)
        }
    }

    @Test func purchasesOfAnAccountThatLoggedInStayThereAndTheAnswerSaysSo() async throws {
        try await SignedPurchaseWorld.run { world in
            let pk = world.app.publicKey.key
            let carolsPro = try world.signedTransaction(accountToken: Self.token("carol"))
            #expect(try await world.purchase("carol", jws: carolsPro, bearer: pk, token: nil).status == .ok)
            // Someone else's new install presents carol's purchase with one of its own.
            let stranger = Self.anonymous()
            let ownPro = try world.signedTransaction(accountToken: Self.token(stranger))
            let restored = try await Self.restore(stranger, [carolsPro, ownPro], in: world)
            #expect(restored.status == .ok, "\(restored.text)")
            #expect(try restored.violations(.post, "/v1/customers/{app_user_id}/restore") == [])
            let outcomes = try restored.decode(RestoreResponse.self).outcomes
            #expect(outcomes.map(\.outcome) == [.ownedByOtherAccount, .granted])
            // Nothing moved: carol keeps hers, the stranger has only its own, and they are two customers.
            #expect(try await Self.info("carol", in: world).nonSubscriptionPurchases.count == 1)
            let strangerInfo = try await Self.info(stranger, in: world)
            #expect(strangerInfo.nonSubscriptionPurchases.count == 1)
            #expect(strangerInfo.aliases == [stranger])
            // A purchase request (not a restore) of another's purchase is refused outright, as before.
            let bought = try await world.purchase(stranger, jws: carolsPro, bearer: pk, token: nil)
            #expect(bought.status == .forbidden)
            #expect(bought.problemCode == "app_account_token_mismatch")
        }
    }

    @Test func anIdentifiedRestorerOfAnAnonymousPurchaseFollowsTheTransferPolicy() async throws {
        try await SignedPurchaseWorld.run { world in
            let pk = world.app.publicKey.key
            let old = Self.anonymous()
            let pro = try world.signedTransaction(accountToken: Self.token(old))
            #expect(try await world.purchase(old, jws: pro, bearer: pk, token: nil).status == .ok)
            // The default policy (`transfer`): the purchase moves to the identified customer; no merge.
            let restored = try await Self.restore("dave", [pro], in: world)
            #expect(restored.status == .ok, "\(restored.text)")
            #expect(try restored.decode(RestoreResponse.self).outcomes.map(\.outcome) == [.transferred])
            let dave = try await Self.info("dave", in: world)
            #expect(dave.aliases == ["dave"])
            #expect(dave.nonSubscriptionPurchases.count == 1)
            #expect(try await Self.info(old, in: world).nonSubscriptionPurchases.isEmpty)
        }
    }
}
