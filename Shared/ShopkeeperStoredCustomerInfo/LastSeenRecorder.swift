import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle
import ShopkeeperCore
import ShopkeeperDatabase
import ShopkeeperHTTP

/// Writes the `last_seen` of customers whose info was read from a stored document, in batches, through the entitlements
/// service's published `entitlements.customers_seen_v1` (the entitlements service and the gateway both read stored
/// info, ``StoredCustomerInfoRead``).
///
/// An app launch after a while (`last_seen` older than the resolution) is the usual read. Its answer shows the time
/// of the read; the write is gathered here and made with the others of the last ``interval`` in one statement, so a
/// read stays one row read instead of a row written (and a commit) per launch. `last_seen` is bookkeeping, never
/// money: what a replica had gathered when it died is lost, and the customer's next read gathers it again (its
/// `last_seen` is still old). A graceful stop writes what is gathered. The writes are a ``LeasedPoller``'s rounds: its
/// "claim" takes what is gathered (in memory: nothing is leased), and a hand-back puts it back for the last write.
package final class LastSeenRecorder: Service, PolledWork, Sendable {
    package let client: PostgresClient
    /// How old `last_seen` may be before a read refreshes it.
    package let resolution: TimeInterval
    /// How often gathered reads are written.
    package let interval: Duration
    /// The most customers gathered between two writes; reads beyond it are not gathered (their next read is).
    package let capacity: Int
    package let startup: StartupGate?
    package let logger: Logger
    private let pending = NIOLockedValueBox(Set<UUID>())

    /// Ten minutes: `last_seen` is kept to that resolution.
    package static let defaultResolution: TimeInterval = 600

    package init(
        client: PostgresClient, resolution: TimeInterval, interval: Duration = .seconds(1), capacity: Int = 100_000,
        startup: StartupGate?, logger: Logger
    ) {
        self.client = client
        self.resolution = resolution
        self.interval = interval
        self.capacity = capacity
        self.startup = startup
        self.logger = logger
    }

    /// Gathers that `customerID` was seen now.
    package func record(_ customerID: UUID) {
        pending.withLockedValue { pending in
            if pending.count < capacity { pending.insert(customerID) }
        }
    }

    package func run() async throws {
        try await LeasedPoller(
            name: "last_seen_recorder", work: self, interval: interval, firstRound: .afterInterval,
            startup: startup, logger: logger
        ).run()
        // Stopping: what was gathered is written, the shutdown's cancellation notwithstanding.
        await uncancelled { await self.flush() }
    }

    /// Takes what is gathered, as one write.
    package func claim() async throws -> ClaimedBatch<[UUID]> {
        let customers = takeGathered()
        return ClaimedBatch(customers.isEmpty ? [] : [customers], count: customers.count, limit: .max)
    }

    package func process(_ customers: [UUID]) async {
        await write(customers)
    }

    /// Puts back what was taken and not written (stopping): the last flush writes it.
    package func release(_ batches: [[UUID]]) async {
        pending.withLockedValue { pending in
            for customers in batches { pending.formUnion(customers) }
        }
    }

    /// Writes what is gathered (nothing when the database does not answer: logged, and dropped).
    package func flush() async {
        await write(takeGathered())
    }

    private func takeGathered() -> [UUID] {
        pending.withLockedValue { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return Array(pending)
        }
    }

    private func write(_ customers: [UUID]) async {
        guard !customers.isEmpty else { return }
        do {
            try await client.withConnection { connection in
                try await connection.run(
                    Touch.self, try PostgresBindings(customers, self.resolution), logger: self.logger)
            }
        } catch {
            logger.warning(
                "could not write last_seen of customers read",
                metadata: ["customers": "\(customers.count)", "error": "\(String(reflecting: error))"])
        }
    }

    /// Skips customers a change holds (see the function in entitlements' migration 0025).
    private enum Touch: PreparedSQL {
        static let sql = "SELECT entitlements.customers_seen_v1($1::uuid[], $2::float8)"
    }
}
