import Foundation
import ShopkeeperCore

/// The customer presenting a proof, locked for the rest of the transaction.
struct Presenter: Sendable {
    var customerID: UUID
    var appUserID: String
    var deviceID: String?
    /// Every id of the customer (loaded when a transaction names an account).
    var aliases: [String]
    /// Account tokens (lowercased) of other customers this one may present in a restore: an anonymous owner's, when
    /// the presenter is identified (``RestoreAccounts``); the app's transfer policy then decides.
    var acceptedAccountTokens: Set<String> = []

    /// Whether an `appAccountToken` was made for one of this customer's ids (or a restore accepted it).
    func owns(appAccountToken token: String) -> Bool {
        if acceptedAccountTokens.contains(token.lowercased()) { return true }
        return Self.names(token, anyOf: aliases)
    }

    /// Whether `token` was made for one of `ids`.
    static func names(_ token: String, anyOf ids: [String]) -> Bool {
        ids.contains {
            AppAccountToken.uuid(forAppUserID: $0).uuidString.caseInsensitiveCompare(token) == .orderedSame
        }
    }

    /// Whether a Play obfuscated account id names this customer: one of its ids, or that id's account token.
    func owns(obfuscatedAccountID account: String) -> Bool {
        aliases.contains(account) || owns(appAccountToken: account)
    }
}
