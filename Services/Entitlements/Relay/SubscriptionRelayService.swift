import Logging
import ServiceLifecycle
import ShopkeeperHTTP

/// Runs the ``SubscriptionChangeRelay`` in the background (a ``LeasedPoller``): subscription and trial changes
/// become the customer's events and webhooks, and drop the customer's cached info, within about `interval`. The
/// relay's own statement holds the cursor row, so there is nothing to process or hand back after it.
struct SubscriptionRelayService: PolledService {
    static let pollerName = "subscription_relay"
    let relay: SubscriptionChangeRelay
    let interval: Duration
    /// Opens once the schema is migrated.
    let startup: StartupGate
    let logger: Logger

    /// Creates the relay's cursor row (retried until it exists).
    func prepare() async throws {
        try await relay.ensureCursor()
    }

    /// Relays one batch of changes.
    func claim() async throws -> ClaimedBatch<Never> {
        .done(try await relay.relayOnce(), limit: relay.batchSize)
    }

    func process(_ item: Never) async {}
}
