import Foundation
import Testing

@testable import ShopkeeperKit

/// StoreKit's app transaction through the kit, against the real local stack: the paid `full` edition's app
/// transaction makes the products it includes the customer's; the kit sends it once per install, and again on
/// restore.
@Suite(.enabled(if: Stack.available)) struct PaidEditionStackTests {
    /// The demo's paid edition, sold as an app of its own (`variant_bundle_ids`: `full`).
    static func fullEdition(_ stack: Stack) -> SandboxAppEdition {
        SandboxAppEdition(bundleID: "\(stack.bundleID).full", originalApplicationVersion: "2.0")
    }

    @Test func theFullEditionsAppTransactionMakesTheIncludedSeedsOwned() async throws {
        let stack = try Stack.require()
        let device = try stack.device(edition: Self.fullEdition(stack), variant: "full")
        let kit = device.shopkeeper
        #expect(try await kit.customerInfo().entitlements["seeds_tulip"] == nil)
        #expect(await kit.sentAppTransaction == nil)

        await kit.start()
        let sent = try #require(await kit.sentAppTransaction)
        #expect(sent.refusal == nil)
        #expect(sent.appTransactionID != nil)
        let info = try await kit.customerInfo()
        #expect(info.productGrants.contains { $0.productID == "seeds_tulip" && $0.source == "included" })
        #expect(info.entitlements["seeds_tulip"]?.active == true)
        #expect(info.entitlements["extra_garden"] == nil, "first got at 2.0: nothing grandfathered")
        // The full edition's catalog shows it as part of the app, not for sale.
        #expect(try await kit.products().first { $0.id == "seeds_tulip" }?.availability == .included)
        let pack = try await kit.content(productID: "seeds_tulip")
        #expect(pack.files.keys.sorted() == ["images/tulip.svg", "pack.json"])
        await kit.stop()
    }

    @Test func anAppTransactionFirstGotBeforeTwoPointZeroKeepsTheGrandfatheredGarden() async throws {
        let stack = try Stack.require()
        let kit = try stack.device(edition: SandboxAppEdition(originalApplicationVersion: "1.0")).shopkeeper
        await kit.start()
        let info = try await kit.customerInfo()
        #expect(info.productGrants.map(\.productID) == ["extra_garden"])
        #expect(info.productGrants.first?.source == "grandfathered")
        #expect(info.entitlements["seeds_tulip"] == nil, "the app's own edition includes nothing")
        await kit.stop()
    }

    @Test func theAppTransactionIsSentOncePerInstallAndAgainOnRestore() async throws {
        let stack = try Stack.require()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        let counting = CountingDeviceStore(real: try stack.device(directory: folder).store)
        let first = try stack.device(directory: folder, store: counting)
        await first.shopkeeper.start()
        #expect(await counting.appTransactions == 1)
        let sent = try #require(await first.shopkeeper.sentAppTransaction)
        await first.shopkeeper.start()
        #expect(await counting.appTransactions == 1, "started again: not sent again")
        await first.shopkeeper.stop()

        // The app is launched again and configures the kit again: the install sent it already.
        let second = try stack.device(directory: folder, store: counting)
        await second.shopkeeper.start()
        #expect(await counting.appTransactions == 1)
        let kept = try #require(await second.shopkeeper.sentAppTransaction)
        #expect(kept.appTransactionID == sent.appTransactionID && kept.appUserID == sent.appUserID)
        #expect(abs(kept.sentAt.timeIntervalSince(sent.sentAt)) < 1, "the first send, as kept (to the second)")

        // Restore sends it again, with everything else the store account holds.
        let restored = try await second.shopkeeper.restore()
        #expect(await counting.appTransactions == 2)
        #expect(restored.appTransaction?.appTransactionID == sent.appTransactionID)
        #expect(restored.appTransaction?.outcome == "already_recorded")
        #expect(restored.rejected.isEmpty, "\(restored.rejected)")
        let resent = try #require(await second.shopkeeper.sentAppTransaction)
        #expect(resent.sentAt > sent.sentAt)
        await second.shopkeeper.stop()

        // Deleted and installed again: a new install sends it once more.
        try second.deleteApp()
        let reinstalled = try stack.device(directory: folder, store: counting)
        await reinstalled.shopkeeper.start()
        #expect(await counting.appTransactions == 3)
        await reinstalled.shopkeeper.stop()
    }
}

/// The sandbox device store, counting how often the kit asks it for the app transaction (it asks only to send it).
actor CountingDeviceStore: DeviceStore {
    let real: SandboxDeviceStore
    private(set) var appTransactions = 0

    init(real: SandboxDeviceStore) { self.real = real }

    nonisolated var platform: StorePlatform { real.platform }
    func buildKind() async -> BuildKind { await real.buildKind() }
    func purchase(_ request: DevicePurchaseRequest) async throws(ShopkeeperError) -> DeviceTransaction? {
        try await real.purchase(request)
    }
    func unfinishedTransactions() async throws(ShopkeeperError) -> [DeviceTransaction] {
        try await real.unfinishedTransactions()
    }
    func currentEntitlements() async throws(ShopkeeperError) -> [DeviceTransaction] {
        try await real.currentEntitlements()
    }
    func finish(_ transaction: DeviceTransaction) async throws(ShopkeeperError) { try await real.finish(transaction) }
    nonisolated func transactionUpdates() -> AsyncStream<DeviceTransaction> { real.transactionUpdates() }
    func appTransaction() async throws(ShopkeeperError) -> String? {
        appTransactions += 1
        return try await real.appTransaction()
    }
}
