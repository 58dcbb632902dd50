import Foundation
import ShopkeeperCore

/// The customer presenting a proof, locked for the rest of the transaction.
struct Presenter: Sendable {
    var customerID: UUID
    var appUserID: String
    var deviceID: String?
    /// Every id of the customer (loaded when a transaction names an account).
    var aliases: [String]

    /// Whether an `appAccountToken` was made for one of this customer's ids.
    func owns(appAccountToken token: String) -> Bool {
        aliases.contains {
            AppAccountToken.uuid(forAppUserID: $0).uuidString.caseInsensitiveCompare(token) == .orderedSame
        }
    }

    /// Whether a Play obfuscated account id names this customer: one of its ids, or that id's account token.
    func owns(obfuscatedAccountID account: String) -> Bool {
        aliases.contains(account) || owns(appAccountToken: account)
    }
}
