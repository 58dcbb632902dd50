import Foundation
import ShopkeeperCore
import ShopkeeperModels

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

/// The account a purchase was bound to when it was made: Apple's `appAccountToken` (the account token of an app user
/// id) or Play's obfuscated account id (an app user id, or its account token, as the app chose).
enum PurchaseAccount: Sendable, Equatable {
    case appAccountToken(String)
    case obfuscatedAccountID(String)

    /// The account `transaction` names, if any.
    init?(_ transaction: StoreTransaction) {
        if let token = transaction.appAccountToken {
            self = .appAccountToken(token)
        } else if let account = transaction.obfuscatedAccountID {
            self = .obfuscatedAccountID(account)
        } else {
            return nil
        }
    }

    /// The value a restore accepts for an identified presenter (``Presenter/acceptedAccountTokens``), lowercased as
    /// the presenter compares it.
    var acceptedKey: String {
        switch self {
        case .appAccountToken(let token): token.lowercased()
        case .obfuscatedAccountID(let account): account.lowercased()
        }
    }

    /// Whether the account is one of `ids` (for Play, the id itself or its token; for Apple, only its token).
    func names(anyOf ids: [String]) -> Bool {
        switch self {
        case .appAccountToken(let token): Presenter.names(token, anyOf: ids)
        case .obfuscatedAccountID(let account): ids.contains(account) || Presenter.names(account, anyOf: ids)
        }
    }
}
