import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import ShopkeeperHTTP

/// Listens for `entitlements_customer_changed` notifications and drops the changed customers' cached info. While it
/// is not listening the cache is off; after a lost connection it reconnects and starts from an empty cache.
///
/// `LISTEN` belongs to a session, which a pooler in transaction mode does not keep: `client` is a pool of one
/// connection of its own, to `DATABASE_DIRECT_URL` when set (``DatabaseSettings/sessionSettings``).
struct CustomerChangeListener: Service {
    static let channel = "entitlements_customer_changed"

    /// The listener's own one-connection pool (run as a service before this one).
    let client: PostgresClient
    let cache: CustomerInfoCache
    let startup: StartupGate
    let logger: Logger
    var retryDelay: Duration = .seconds(1)

    func run() async throws {
        // A service that returns stops the whole application: with the cache off there is nothing to listen for,
        // but the listener still waits for the shutdown.
        guard cache.isEnabled else {
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            await startup.wait()
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: Self.channel) { notifications in
                            cache.setLive(true)
                            for try await notification in notifications {
                                if let id = UUID(uuidString: notification.payload) {
                                    cache.invalidate(customerIDs: [id])
                                }
                            }
                        }
                    }
                } catch {
                    if !Task.isCancelled {
                        logger.warning(
                            "customer change notifications lost; the info cache is off until they are back",
                            metadata: ["error": "\(String(reflecting: error))"])
                    }
                }
                cache.setLive(false)
                try? await Task.sleep(for: retryDelay)
            }
        }
    }
}
