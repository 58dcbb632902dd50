import Foundation
import Testing

@testable import ShopkeeperKit

/// StoreKit's app transaction through the kit, against the real local stack: the paid `full` edition's app
/// transaction makes the products it includes the customer's; the kit sends it once per install, and again on
/// restore; and downloaded content can be deleted and downloaded again.
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

    @Test func resetContentDeletesEveryPackAndDownloadsAgain() async throws {
        let stack = try Stack.require()
        let product = try await stack.createProduct(type: .nonConsumable)
        let level = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try await stack.publishContent(productID: product.productID, files: ["level.bin": level])
        let kit = try stack.device(edition: Self.fullEdition(stack), variant: "full").shopkeeper
        await kit.start()
        guard case .delivered = try await kit.purchase(productID: product.productID) else {
            Issue.record("not delivered")
            return
        }
        let bought = try await kit.content(productID: product.productID)
        let tulips = try await kit.content(productID: "seeds_tulip")
        // A file spoiled on the device, and the folder of a pack the customer no longer has.
        let spoiled = try #require(bought.files["level.bin"])
        try Data("spoiled".utf8).write(to: spoiled)
        let stale = bought.directory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("kit_stale_pack", isDirectory: true)
        try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: true)

        let packs = try await kit.resetContent()
        #expect(Set(packs.map(\.productID)).isSuperset(of: [product.productID, "seeds_tulip"]))
        #expect(!FileManager.default.fileExists(atPath: stale.path), "every downloaded pack was deleted")
        let again = try #require(packs.first { $0.productID == product.productID })
        #expect(again.downloadedBytes == Int64(level.count), "downloaded again, not kept")
        #expect(try Data(contentsOf: try #require(again.files["level.bin"])) == level)
        let tulipsAgain = try #require(packs.first { $0.productID == "seeds_tulip" })
        #expect(tulipsAgain.downloadedBytes > 0)
        #expect(tulipsAgain.files.keys.sorted() == tulips.files.keys.sorted())
        #expect(try await kit.content(productID: product.productID).downloadedBytes == 0, "and kept from then on")
        await kit.stop()
    }
}

/// The sandbox device store, counting how often the kit asks it for the app transaction (it asks only to send it).
actor CountingDeviceStore: SandboxWrapping {
    nonisolated let real: SandboxDeviceStore
    private(set) var appTransactions = 0

    init(real: SandboxDeviceStore) { self.real = real }

    func appTransaction() async throws(ShopkeeperError) -> String? {
        appTransactions += 1
        return try await real.appTransaction()
    }
}
