import Foundation
import Testing

@testable import ShopkeeperKit

/// Someone who never logs in, against the real local stack: a reinstall is the same person on the same device (the
/// ids are in the id store, the Keychain's stand-in), and a new phone gets the purchases back by restoring.
@Suite(.enabled(if: Stack.available)) struct AnonymousBuyerStackTests {
    @Test func aReinstallKeepsTheIdsSoNoSecondTrialAndTheBalanceStays() async throws {
        let stack = try Stack.require()
        let pro = try await stack.createProduct(
            type: .autoRenewable, duration: "P1M", trialDuration: "P7D",
            group: "kit_reinstall_\(UUID().uuidString.prefix(6))")
        let first = try stack.device()
        let trial = try await first.shopkeeper.startTrial(productID: pro.productID)
        #expect(trial.state == "active")
        guard case .delivered = try await first.shopkeeper.purchase(productID: "fertilizer_10") else {
            Issue.record("the consumable was not delivered")
            return
        }
        #expect(try await first.shopkeeper.consume(productID: "fertilizer_10", quantity: 3).balance == 7)
        let (anonymous, device) = (await first.shopkeeper.anonymousID, await first.shopkeeper.deviceID)

        // Deleted and installed again: the app's files are gone, the Keychain is not.
        try first.deleteApp()
        let again = try stack.device(directory: first.directory)
        #expect(await again.shopkeeper.anonymousID == anonymous)
        #expect(await again.shopkeeper.appUserID == anonymous)
        #expect(await again.shopkeeper.deviceID == device)
        #expect(try await again.shopkeeper.customerInfo().consumableBalances["fertilizer_10"] == 7, "not stranded")
        // No second trial: asking again answers the one that runs, and no intro offer or trial is offered.
        let second = try await again.shopkeeper.startTrial(productID: pro.productID)
        #expect(second.startedAt == trial.startedAt)
        #expect(second.expiresAt == trial.expiresAt)
        #expect(try await again.shopkeeper.eligibility(productID: pro.productID).eligible == false)
        // Nor by logging out to a new anonymous id: the device id is the same, and the trial was used on it.
        try await again.shopkeeper.logOut()
        await #expect(throws: ShopkeeperError.self) {
            do throws(ShopkeeperError) { _ = try await again.shopkeeper.startTrial(productID: pro.productID) } catch {
                #expect(error.code == "trial_used_on_device", "\(error)")
                throw error
            }
        }
    }

    @Test func anAnonymousBuyerRestoresOnANewPhoneAsOneCustomer() async throws {
        let stack = try Stack.require()
        let monthly = try await stack.createProduct(
            type: .autoRenewable, duration: "P1M", group: "kit_newphone_\(UUID().uuidString.prefix(6))")
        let account = FileManager.default.temporaryDirectory.appendingPathComponent("kit-account-\(UUID().uuidString)")
        let old = try stack.device(account: account)
        for product in ["extra_garden", monthly.productID, "fertilizer_10"] {
            guard case .delivered = try await old.shopkeeper.purchase(productID: product) else {
                Issue.record("\(product) was not delivered")
                return
            }
        }
        let a = await old.shopkeeper.anonymousID

        // A new phone of the same store account: nothing of the old one but the store account.
        let new = try stack.device(account: account)
        let b = await new.shopkeeper.anonymousID
        #expect(b != a)
        #expect(await new.shopkeeper.deviceID != old.shopkeeper.deviceID)
        let restored = try await new.shopkeeper.restore()
        #expect(restored.appUserID == b)
        #expect(restored.ownedByOtherAccount.isEmpty, "\(restored.outcomes)")
        #expect(restored.entitlements["extra_garden"]?.active == true)
        #expect(restored.entitlements[monthly.productID]?.active == true)
        #expect(restored.subscriptions.contains { $0.productID == monthly.productID && $0.state == "active" })
        #expect(Set(restored.restored.compactMap(\.productID)) == ["extra_garden", monthly.productID])
        // One customer: both ids address it, and the ten units are there once (not twice, not lost).
        #expect(Set(restored.aliases) == [a, b])
        #expect(restored.consumableBalances["fertilizer_10"] == 10)
        let seenFromOld = try await old.shopkeeper.customerInfo()
        #expect(Set(seenFromOld.aliases) == [a, b])
        #expect(seenFromOld.nonSubscriptionPurchases.filter { $0.productID == "extra_garden" }.count == 1)
        #expect(try await new.shopkeeper.restore().consumableBalances["fertilizer_10"] == 10, "restoring again")
        #expect(try await new.shopkeeper.consume(productID: "fertilizer_10", quantity: 4).balance == 6)
        #expect(try await old.shopkeeper.customerInfo().consumableBalances["fertilizer_10"] == 6, "one balance")
    }

    @Test func aPurchaseOfAnAccountThatLoggedInIsReportedAndNothingMoves() async throws {
        let stack = try Stack.require()
        let account = FileManager.default.temporaryDirectory.appendingPathComponent("kit-account-\(UUID().uuidString)")
        let carol = "kit-carol-\(UUID().uuidString.prefix(8))"
        let carols = try stack.device(account: account)
        _ = try await carols.shopkeeper.logIn(carol)
        guard case .delivered = try await carols.shopkeeper.purchase(productID: "extra_garden") else {
            Issue.record("not delivered")
            return
        }
        let before = try await carols.shopkeeper.customerInfo()

        // Someone else's new install on the same store account (D, never logged in) restores.
        let d = try stack.device(account: account)
        let restored = try await d.shopkeeper.restore()
        #expect(restored.ownedByOtherAccount.map(\.productID) == ["extra_garden"], "\(restored.outcomes)")
        #expect(restored.restored.isEmpty)
        #expect(restored.entitlements["extra_garden"] == nil)
        #expect(restored.aliases == [await d.shopkeeper.anonymousID])
        let after = try await carols.shopkeeper.customerInfo()
        #expect(after.aliases == before.aliases, "no merge into carol")
        #expect(after.nonSubscriptionPurchases == before.nonSubscriptionPurchases)
        #expect(after.entitlements["extra_garden"]?.active == true)
    }
}
