import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperStoredCustomerInfo

/// The gateway's answer to the usual app launch, `GET /v1/customers/{app_user_id}`, from the info the entitlements
/// service stored for the customer (``StoredCustomerInfoRead``, through the function that service publishes), without
/// calling it: one row read on the client connection's own event loop (``StoredReadConnections``) instead of a
/// second HTTP exchange and the service's own read.
///
/// Only the plain case is answered here: a keyed `GET` on the channel path (so the key is known and within its rate
/// limit, and no customer token is needed), an id sent as it is (no percent-escapes, no query), a customer whose
/// stored info still counts. Everything else goes to the entitlements service as before, which renders (and stores)
/// the info: an unknown id, nothing stored, a connection not ready, a failed read. The answer is the service's, byte
/// for byte: the same document (``CustomerInfoText``), entity tag and headers. A read that finds `last_seen` stale
/// shows the time of the read and records it in a batch (``LastSeenRecorder``), as the service does.
struct StoredCustomerReads: Service, Sendable {
    /// The route's service: its requests are the ones answered here.
    static let service = "entitlements"

    private let loops: [NIOLoopBoundBox<StoredReadConnections>]
    let lastSeen: LastSeenRecorder
    /// `shopkeeper_cache_lookups_total{cache="stored_customer_info"}`: a hit is a read answered here, a miss one the
    /// service answered.
    private let metrics = CacheMetrics(cache: "stored_customer_info")
    private let observe: @Sendable (_ answered: Bool) -> Void

    /// `connections` database connections spread over the event loops of `eventLoopGroup` (none: nothing answered
    /// here; a loop left without one sends its reads to the service). `observe` learns of every read this path took
    /// up, whether it answered it (a test watches).
    init(
        database: DatabaseSettings, connections: Int, lastSeen: LastSeenRecorder,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton,
        observe: @escaping @Sendable (Bool) -> Void = { _ in },
        logger: Logger
    ) {
        self.lastSeen = lastSeen
        self.observe = observe
        let configuration = database.connectionConfiguration
        let loops = Array(eventLoopGroup.makeIterator())
        self.loops = loops.enumerated().compactMap { index, loop in
            let share = connections / loops.count + (index < connections % loops.count ? 1 : 0)
            guard share > 0 else { return nil }
            return NIOLoopBoundBox.makeBoxSendingValue(
                StoredReadConnections(
                    eventLoop: loop, configuration: configuration, connections: share, logger: logger),
                eventLoop: loop)
        }
    }

    /// The connections of `eventLoop` (call on it); `nil` when there are none.
    func connections(on eventLoop: any EventLoop) -> StoredReadConnections? {
        loops.first { $0.eventLoop === eventLoop }?.value
    }

    /// How old `last_seen` may be before a read shows (and records) the time of the read.
    var resolution: TimeInterval { lastSeen.resolution }

    /// Counts a read taken up here: `answered` from the stored info, or sent to the service.
    func record(answered: Bool) {
        metrics.record(hit: answered)
        observe(answered)
    }

    /// The app user id of a request target `path` (without query) that this path may answer: exactly
    /// `/v1/customers/{app_user_id}`, the id spelled canonically in plain characters (``CustomerPath``). `nil` for
    /// anything else.
    static func appUserID(in path: Substring) -> Substring? {
        let prefix = "/v1/customers/"
        guard path.hasPrefix(prefix) else { return nil }
        let id = path.dropFirst(prefix.utf8.count)
        guard !id.isEmpty, !id.contains("/"), CustomerPath.isForwardableAsSent(path) else { return nil }
        return id
    }

    /// Closes the connections at shutdown, once the server has drained.
    func run() async throws {
        try? await gracefulShutdown()
        for box in loops {
            box.eventLoop.execute { box.value.close() }
        }
    }
}
