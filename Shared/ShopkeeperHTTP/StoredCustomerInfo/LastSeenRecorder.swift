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
/// `last_seen` is still old). A graceful stop writes what is gathered.
package final class LastSeenRecorder: Service, Sendable {
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
        await cancelWhenGracefulShutdown {
            await self.startup?.wait()
            while !Task.isCancelled {
                try? await Task.sleep(for: self.interval)
                await self.flush()
            }
        }
        // Stopping: what was gathered is written, the shutdown's cancellation notwithstanding.
        await uncancelled { await self.flush() }
    }

    /// Writes what is gathered (nothing when the database does not answer: logged, and dropped).
    package func flush() async {
        let customers = pending.withLockedValue { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return Array(pending)
        }
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
