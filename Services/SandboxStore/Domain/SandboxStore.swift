import Foundation
import ShopkeeperCore
import ShopkeeperStores

/// The sandbox store's state: App Store transactions and keys, Google Play purchases, service accounts and tokens.
///
/// Lives in memory behind this actor and is written through to `state.json` on every change, so a restart keeps
/// every purchase. Store-specific operations are in the `SandboxStore+Apple` and `SandboxStore+Google` extensions.
actor SandboxStore {
    var state: SandboxSnapshot
    /// Transaction id -> index in `state.appleTransactions`.
    var appleIndex: [String: Int] = [:]
    /// Purchase token -> index in `state.googlePurchases`.
    var googleIndex: [String: Int] = [:]
    private let directory: StateDirectory
    /// How much faster than real time subscription periods pass (a `period` of P1M lasts 30 days / `timeScale`).
    let timeScale: Double

    /// Loads the saved state of `directory`, or starts empty.
    init(directory: StateDirectory, timeScale: Double = 1) throws {
        self.directory = directory
        self.timeScale = timeScale
        let state = try directory.loadState() ?? SandboxSnapshot()
        self.state = state
        for (index, record) in state.appleTransactions.enumerated() { appleIndex[record.transactionId] = index }
        for (index, record) in state.googlePurchases.enumerated() { googleIndex[record.purchaseToken] = index }
    }

    /// Writes the state through to disk; called after every change.
    func commit() throws {
        try directory.save(state)
    }
}

/// Random identifiers in the stores' own shapes.
enum StoreIdentifiers {
    private static let upperAlphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    private static let lowercase = Array("abcdefghijklmnopqrstuvwxyz")

    /// An App Store order id such as `MK5TTTVWJH`.
    static func appleOrderID() -> String {
        String((0..<10).map { _ in upperAlphanumerics.randomElement() ?? "A" })
    }

    /// An App Store Connect key id such as `2X9R4HXF34`.
    static func appleKeyID() -> String {
        appleOrderID()
    }

    /// A Google Play order id such as `GPA.3312-4567-8901-23456`.
    static func googleOrderID() -> String {
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(Int.random(in: 0...9))) })
        }
        return "GPA.\(digits(4))-\(digits(4))-\(digits(4))-\(digits(5))"
    }

    /// An opaque Google Play purchase token.
    static func googlePurchaseToken() -> String {
        let head = String((0..<24).map { _ in lowercase.randomElement() ?? "a" })
        return head + ".AO-J1O" + RandomToken.base62(length: 96)
    }

    /// An OAuth access token in Google's shape (`ya29.` ...).
    static func googleAccessToken() -> String {
        "ya29.c." + RandomToken.base62(length: 120)
    }

    /// A number of `count` decimal digits (no leading zero).
    static func digits(_ count: Int) -> String {
        String(Int.random(in: 1...9)) + String((1..<count).map { _ in Character(String(Int.random(in: 0...9))) })
    }
}
