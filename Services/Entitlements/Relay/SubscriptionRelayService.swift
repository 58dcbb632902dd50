import Logging
import ServiceLifecycle
import ShopkeeperHTTP

/// Runs the ``SubscriptionChangeRelay`` in the background: subscription and trial changes become the customer's
/// events and webhooks, and drop the customer's cached info, within about `interval`.
struct SubscriptionRelayService: Service {
    let relay: SubscriptionChangeRelay
    let interval: Duration
    /// Opens once the schema is migrated.
    let startup: StartupGate
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await startup.wait()
            while !Task.isCancelled {
                do {
                    try await relay.ensureCursor()
                    break
                } catch {
                    logger.warning(
                        "could not create the relay cursor; retrying",
                        metadata: ["error": "\(String(reflecting: error))"])
                    try? await Task.sleep(for: interval)
                }
            }
            while !Task.isCancelled {
                var read = 0
                do {
                    read = try await relay.relayOnce()
                } catch {
                    logger.warning(
                        "could not relay subscription changes; retrying",
                        metadata: ["error": "\(String(reflecting: error))"])
                }
                if read < relay.batchSize {
                    try? await Task.sleep(for: interval)
                }
            }
        }
    }
}
