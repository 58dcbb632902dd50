import Foundation
import ShopkeeperCore
import ShopkeeperModels
import Testing

@testable import Entitlements

/// Restoring Play purchases on a new install: a Play purchase names its buyer by the obfuscated account id the app
/// set (an app user id, or its account token), and a restore treats it as it treats Apple's `appAccountToken`.
@Suite struct PlayRestoreTests {
    static func anonymous() -> String { "anon_" + UUID().uuidString.lowercased() }
    static func token(_ user: String) -> String { AppAccountToken.uuid(forAppUserID: user).uuidString.lowercased() }

    static func play(_ product: String, account: String) -> StoreTransaction {
        EntitlementsFixtures.transaction(product: product, store: .playStore, obfuscatedAccountID: account)
    }

    @Test(arguments: [true, false])
    func anAnonymousPlayBuyerRestoresOnANewInstallAsOneCustomer(boundByToken: Bool) async throws {
        try await EntitlementsHarness.run { harness in
            let old = Self.anonymous()
            let account = boundByToken ? Self.token(old) : old
            let garden = Self.play("garden", account: account)
            let seeds = Self.play("seeds", account: account)
            _ = try await harness.applied([garden, seeds], user: old, device: "old-phone")

            let new = Self.anonymous()
            let restored = try await harness.applied([garden, seeds], user: new, device: "new-phone", source: .restore)
            #expect(restored.outcomes.map(\.outcome) == [.alreadyApplied, .alreadyApplied])
            for id in [old, new] {
                let info = try await harness.info(id)
                #expect(Set(info.aliases) == [old, new])
                #expect(info.nonSubscriptionPurchases.filter { $0.productID == "garden" }.count == 1)
                #expect(info.consumableBalances["seeds"] == 5)
            }
        }
    }

    @Test func aPlayPurchaseOfAnAccountThatLoggedInStaysThereAndTheRestGoesOn() async throws {
        try await EntitlementsHarness.run { harness in
            let carols = Self.play("garden", account: "carol")
            _ = try await harness.applied([carols], user: "carol")
            let stranger = Self.anonymous()
            let own = Self.play("seeds", account: Self.token(stranger))
            // Before, the whole restore was refused (403 obfuscated_account_id_mismatch) for carol's purchase.
            let restored = try await harness.applied([carols, own], user: stranger, source: .restore)
            #expect(restored.outcomes.map(\.outcome) == [.ownedByOtherAccount, .credited])
            #expect(try await harness.info("carol").nonSubscriptionPurchases.count == 1)
            let strangerInfo = try await harness.info(stranger)
            #expect(strangerInfo.aliases == [stranger])
            #expect(strangerInfo.nonSubscriptionPurchases.allSatisfy { $0.productID == "seeds" })
            #expect(strangerInfo.consumableBalances["seeds"] == 5)
            // A purchase request (not a restore) of carol's purchase is still refused outright.
            let bought = try await harness.apply([carols], user: stranger)
            #expect(bought.status == .forbidden)
        }
    }

    @Test func anIdentifiedRestorerOfAnAnonymousPlayPurchaseFollowsTheTransferPolicy() async throws {
        try await EntitlementsHarness.run { harness in
            let old = Self.anonymous()
            let garden = Self.play("garden", account: Self.token(old))
            _ = try await harness.applied([garden], user: old)
            let restored = try await harness.applied([garden], user: "dave", source: .restore)
            #expect(restored.outcomes.map(\.outcome) == [.transferred])
            #expect(try await harness.info("dave").nonSubscriptionPurchases.count == 1)
            #expect(try await harness.info(old).nonSubscriptionPurchases.isEmpty)
        }
    }
}
