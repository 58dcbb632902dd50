import Foundation
import Testing

@testable import ShopkeeperKit

/// Someone who never logs in, against the real local stack: a reinstall is the same person on the same device (the
/// ids are in the id store, the Keychain's stand-in).
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
}
