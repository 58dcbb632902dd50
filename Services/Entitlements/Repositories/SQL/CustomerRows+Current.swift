import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

extension CustomerRows {
    /// The customer `appUserID` names, its lock taken (with those of `alsoLocking`, in one ordered call: see
    /// ``CustomerLocks``); `nil` when no customer has the id and `create` is false.
    ///
    /// An alias can move to another customer (a merge) while the caller waits for the lock of the customer it named
    /// before: the id is read again once the lock is held, and when it moved the whole transaction starts again
    /// (``TransactionRestart``), so a change is never written to a customer that was merged away and no lock is
    /// taken out of order.
    static func lockCurrent(
        appID: String, appUserID: String, create: Bool, alsoLocking others: [UUID] = [],
        on connection: PostgresConnection, logger: Logger
    ) async throws -> UUID? {
        let named: UUID?
        if create {
            named = try await customerFor(appID: appID, appUserID: appUserID, on: connection, logger: logger)
        } else {
            named = try await find(appID: appID, appUserID: appUserID, on: connection, logger: logger)
        }
        guard let named else { return nil }
        try await CustomerLocks.lock([named] + others, on: connection, logger: logger)
        let now = try await find(appID: appID, appUserID: appUserID, on: connection, logger: logger)
        guard now == named else {
            throw TransactionRestart(reason: "the customer was merged into another while the change waited")
        }
        return named
    }
}
