import Foundation

@testable import ShopkeeperKit

/// A test's device store that buys, restores and finishes at the sandbox (``real``) but for what it overrides; the
/// store's products, payments, storefront and app transaction stay `DeviceStore`'s defaults unless it writes them.
protocol SandboxWrapping: DeviceStore {
    var real: SandboxDeviceStore { get }
}

extension SandboxWrapping {
    var platform: StorePlatform { real.platform }

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

    func transactionUpdates() -> AsyncStream<DeviceTransaction> { real.transactionUpdates() }
}
