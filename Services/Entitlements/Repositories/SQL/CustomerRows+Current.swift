import Foundation
import Logging
import PostgresNIO

extension CustomerRows {
    /// How many times an id is resolved again when a merge moved it while the caller waited for its lock.
    static let resolveAttempts = 8

    /// The customer `appUserID` names, locked until the transaction ends (with `alsoLocking`, in one id-ordered
    /// statement); `nil` when no customer has the id and `create` is false.
    ///
    /// An alias can move to another customer (a merge) while the caller waits for the lock of the customer it named
    /// before: the id is read again once the lock is held, and resolved afresh when it moved, so a change is never
    /// written to a customer that was merged away.
    static func lockCurrent(
        appID: String, appUserID: String, create: Bool, alsoLocking others: [UUID] = [],
        on connection: PostgresConnection, logger: Logger
    ) async throws -> UUID? {
        for _ in 0..<resolveAttempts {
            let named: UUID?
            if create {
                named = try await customerFor(appID: appID, appUserID: appUserID, on: connection, logger: logger)
            } else {
                named = try await find(appID: appID, appUserID: appUserID, on: connection, logger: logger)
            }
            guard let named else { return nil }
            try await lock([named] + others, on: connection, logger: logger)
            let now = try await find(appID: appID, appUserID: appUserID, on: connection, logger: logger)
            if now == named { return named }
        }
        throw CustomerRowsError.keptMoving
    }
}

extension CustomerRowsError {
    /// An id moved to another customer on every attempt to lock it (merges faster than the caller).
    static let keptMoving = CustomerRowsError()
}
