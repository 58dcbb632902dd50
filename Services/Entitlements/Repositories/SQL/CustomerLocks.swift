import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ShopkeeperDatabase

/// One writer per customer: the locks every change to a customer's money takes before anything else.
///
/// A change (an apply, a consume, a merge, a grant) names every customer it may touch, takes all their locks in one
/// call, in one global order, and only then reads, locks or writes rows. Locks are held until the transaction ends.
/// Because every change takes its whole set up front and in the same order, no two changes wait on each other in a
/// circle: the design cannot deadlock (`docs/architecture.md`, "One writer per customer").
///
/// What a change learns only once it holds its locks (a purchase's owner changed meanwhile, an id was merged into
/// another customer) is taken with ``tryLock(_:on:logger:)``, which never waits; when that fails the change throws
/// ``TransactionRestart``, which releases everything and runs it again with the customers it now knows.
enum CustomerLocks {
    /// Takes the locks of `customerIDs` (in the global order), waiting as long as `lock_timeout` allows.
    static func lock(_ customerIDs: some Collection<UUID>, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        guard !customerIDs.isEmpty else { return }
        try await connection.run(Lock.self, try PostgresBindings(Array(customerIDs)), logger: logger)
    }

    /// Takes the locks of `customerIDs` (``lock(_:on:logger:)``) and then reads which customer `appUserID` names now,
    /// in one round trip (`entitlements.lock_customers_then_find`): the read sees what committed while the locks were
    /// waited for (an id merged into another customer meanwhile names its new customer). `nil` without an id, or for
    /// an id no customer has.
    static func lockThenFind(
        _ customerIDs: some Collection<UUID>, appID: String, appUserID: String?, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> UUID? {
        if customerIDs.isEmpty, appUserID == nil { return nil }
        let rows = try await connection.run(
            LockThenFind.self, try PostgresBindings(Array(customerIDs), appID, appUserID), logger: logger
        ) { try $0.decode(UUID?.self) }
        return rows.first ?? nil
    }

    /// Takes the locks of `customerIDs` only if none has to be waited for; throws ``TransactionRestart`` otherwise
    /// (some may be held until the rollback: the rerun takes them in order).
    static func tryLock(_ customerIDs: some Collection<UUID>, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        guard !customerIDs.isEmpty else { return }
        let taken = try await connection.run(TryLock.self, try PostgresBindings(Array(customerIDs)), logger: logger) {
            try $0.decode(Bool.self)
        }
        guard taken.first == true else {
            throw TransactionRestart(reason: "a customer the change must lock is busy; taking every lock in order")
        }
    }

    private enum Lock: PreparedSQL {
        static let sql = "SELECT entitlements.lock_customers($1::uuid[])"
    }

    private enum LockThenFind: PreparedSQL {
        static let sql = "SELECT entitlements.lock_customers_then_find($1::uuid[], $2::text, $3::text)"
    }

    private enum TryLock: PreparedSQL {
        static let sql = "SELECT entitlements.try_lock_customers($1::uuid[])"
    }
}

/// The customers a change holds the locks of, so that it can take one it learns about late without waiting.
final class LockedCustomers: Sendable {
    private let ids: NIOLockedValueBox<Set<UUID>>

    init(_ ids: some Sequence<UUID> = []) {
        self.ids = NIOLockedValueBox(Set(ids))
    }

    /// Whether the change holds `customerID`'s lock.
    func contains(_ customerID: UUID) -> Bool {
        ids.withLockedValue { $0.contains(customerID) }
    }

    /// Takes the locks of those of `customerIDs` not held yet, without waiting (``CustomerLocks/tryLock(_:on:logger:)``).
    func require(_ customerIDs: some Sequence<UUID>, on connection: PostgresConnection, logger: Logger) async throws {
        let missing = Set(customerIDs).subtracting(ids.withLockedValue { $0 })
        guard !missing.isEmpty else { return }
        try await CustomerLocks.tryLock(missing, on: connection, logger: logger)
        ids.withLockedValue { $0.formUnion(missing) }
    }
}
