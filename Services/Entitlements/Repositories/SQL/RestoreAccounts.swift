import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// What a restore does with purchases whose account (``PurchaseAccount``: Apple's `appAccountToken`, Play's obfuscated
/// account id) names another customer than the presenter's.
///
/// A person who never logged in is an anonymous id (``AppUserID/isAnonymous(_:)``), and every install makes a new
/// one: the same person restoring on a new phone presents purchases bound to their old install's id. So, for each
/// such purchase, by its recorded owner (whom the token must name):
/// - owner and presenter anonymous: one person. The presenter's customer is merged into the owner's (which keeps
///   the purchases; the new id becomes one of its ids, as a log-in would make it), and the restore goes on as that
///   customer. Units move as a merge moves them (a pair of ledger lines), never credited again.
/// - owner anonymous, presenter identified: the app's transfer policy decides, as for any other restore.
/// - owner identified (or the purchase unknown here): not applied, answered `owned_by_other_account`, so the app
///   can ask the person to log in to that account.
///
/// Runs inside the apply's transaction, after the locks of the presenter and of every owner are held.
struct RestoreAccounts {
    /// The customer the restore goes on as (the owner the presenter was merged into, if any).
    var presenter: UUID
    /// Accounts of anonymous owners an identified presenter may present (``PurchaseAccount/acceptedKey``).
    var acceptedTokens: Set<String> = []
    /// Indices of transactions owned by another, identified account: not applied.
    var ownedElsewhere: Set<Int> = []
    /// The customers merged into others, for the cache to forget.
    var merged: [UUID] = []

    static func resolve(
        _ transactions: [StoreTransaction], presenter customerID: UUID, appUserID: String, appID: String,
        locked: LockedCustomers, on connection: PostgresConnection, logger: Logger
    ) async throws -> RestoreAccounts {
        var result = RestoreAccounts(presenter: customerID)
        var presenterIDs = try await CustomerRows.aliases(of: customerID, on: connection, logger: logger)
        for (index, transaction) in transactions.enumerated() {
            guard let account = PurchaseAccount(transaction), !account.names(anyOf: presenterIDs),
                !result.acceptedTokens.contains(account.acceptedKey)
            else { continue }
            guard
                let row = try await PurchaseRow.lock(
                    store: transaction.store, originalTransactionID: transaction.originalTransactionID, appID: appID,
                    on: connection, logger: logger)
            else {
                result.ownedElsewhere.insert(index)
                continue
            }
            if row.customerID == result.presenter {
                // Already this customer's (an earlier merge of this restore brought it): nothing moves.
                result.acceptedTokens.insert(account.acceptedKey)
                continue
            }
            try await locked.require([row.customerID], on: connection, logger: logger)
            let ownerIDs = try await CustomerRows.aliases(of: row.customerID, on: connection, logger: logger)
            guard account.names(anyOf: ownerIDs), ownerIDs.allSatisfy(AppUserID.isAnonymous) else {
                result.ownedElsewhere.insert(index)
                continue
            }
            guard presenterIDs.allSatisfy(AppUserID.isAnonymous) else {
                result.acceptedTokens.insert(account.acceptedKey)
                continue
            }
            try await CustomerMerge.merge(
                result.presenter, into: row.customerID, appID: appID, on: connection, logger: logger)
            result.merged.append(result.presenter)
            result.presenter = row.customerID
            presenterIDs = try await CustomerRows.aliases(of: row.customerID, on: connection, logger: logger)
            var payload = EventPayload()
            payload.reason = "restored"
            payload.fromAppUserID = appUserID
            payload.toAppUserID = ownerIDs.first
            payload.aliases = presenterIDs
            try await EventOutbox.append(
                .alias, payload: payload, appID: appID, customerID: row.customerID, appUserID: appUserID,
                on: connection, logger: logger)
        }
        return result
    }
}
