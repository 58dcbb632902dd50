/// What "Restore purchases" did: what the customer owns now, and what became of each purchase the store account
/// holds. Reads like the ``CustomerInfo`` it carries (`result.entitlements`, `result.activeEntitlements`), so code
/// written when ``Shopkeeper/restore()`` answered customer info reads the same.
///
/// A purchase made by someone who never logged in comes back to whoever restores it (the two installs become one
/// customer on the server). A purchase of an account that logged in stays with that account: it is listed in
/// ``ownedByOtherAccount``, and the app can ask the person to log in to that account to use it.
@dynamicMemberLookup
public struct RestoreResult: Hashable, Sendable {
    /// What the customer owns now.
    public var customer: CustomerInfo
    /// What applying each transaction of the store account did (empty when the account holds nothing).
    public var outcomes: [TransactionOutcome]
    /// Proofs that did not verify.
    public var rejected: [RejectedProof]
    /// The store's app transaction, when it went along and verified (its products are in `productGrants`).
    public var appTransaction: AppTransactionResult?

    /// A result.
    public init(
        customer: CustomerInfo, outcomes: [TransactionOutcome] = [], rejected: [RejectedProof] = [],
        appTransaction: AppTransactionResult? = nil
    ) {
        self.customer = customer
        self.outcomes = outcomes
        self.rejected = rejected
        self.appTransaction = appTransaction
    }

    /// The customer info's fields (`result.entitlements`).
    public subscript<Value>(dynamicMember keyPath: KeyPath<CustomerInfo, Value>) -> Value { customer[keyPath: keyPath] }

    /// Purchases bound to another account, one that logged in: nothing was applied. Ask the person to log in to it.
    public var ownedByOtherAccount: [TransactionOutcome] {
        outcomes.filter { $0.outcome == TransactionOutcome.ownedByOtherAccount }
    }

    /// Purchases that are this customer's now (granted or credited by this restore, or already theirs).
    public var restored: [TransactionOutcome] {
        outcomes.filter { TransactionOutcome.restoredOutcomes.contains($0.outcome) }
    }
}

extension TransactionOutcome {
    /// A restore's answer for a purchase bound to an account that logged in (or one the server does not know).
    public static let ownedByOtherAccount: ServerValue = "owned_by_other_account"

    /// The outcomes that leave the purchase with the customer who presented it.
    static let restoredOutcomes: Set<ServerValue> = [
        "granted", "credited", "already_applied", "transferred", "subscription_recorded", "reinstated",
        "partially_refunded",
    ]
}
