import Foundation

@testable import ShopkeeperKit

/// A device store whose purchases come back with a tampered signature (a pirate's patched app): the purchase is
/// real at the sandbox store, the proof the app sends is not.
struct ForgingDeviceStore: SandboxWrapping {
    let real: SandboxDeviceStore

    func purchase(_ request: DevicePurchaseRequest) async throws(ShopkeeperError) -> DeviceTransaction? {
        try await real.purchase(request).map(Self.forge)
    }

    func unfinishedTransactions() async throws(ShopkeeperError) -> [DeviceTransaction] {
        try await real.unfinishedTransactions().map(Self.forge)
    }

    func currentEntitlements() async throws(ShopkeeperError) -> [DeviceTransaction] {
        try await real.currentEntitlements().map(Self.forge)
    }

    /// The JWS with its signature's first character changed.
    static func forge(_ transaction: DeviceTransaction) -> DeviceTransaction {
        guard case .signedTransaction(let jws) = transaction.proof else { return transaction }
        var parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let first = parts[2].first else { return transaction }
        parts[2] = (first == "A" ? "B" : "A") + parts[2].dropFirst()
        var forged = transaction
        forged.proof = .signedTransaction(parts.joined(separator: "."))
        return forged
    }
}
