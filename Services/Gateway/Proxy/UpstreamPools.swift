import Logging
import NIOCore
import NIOPosix
import ShopkeeperCore

/// Connection pools per distinct service address and event loop.
///
/// A request uses a pool on its client connection's loop, so its upstream I/O and its own resumptions all happen
/// on one thread: no wake-ups of another thread per request.
struct UpstreamPools: Sendable {
    private let pools: [String: [UpstreamConnectionPool]]

    init(
        routes: [UpstreamRoute],
        connectTimeout: Duration,
        readTimeout: Duration,
        maximumConnectionsPerService: Int = 256,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton,
        logger: Logger
    ) {
        let loops = Array(eventLoopGroup.makeIterator())
        var pools: [String: [UpstreamConnectionPool]] = [:]
        for route in routes where pools[Self.key(route)] == nil {
            pools[Self.key(route)] = loops.map { loop in
                UpstreamConnectionPool(
                    host: route.host,
                    port: route.port,
                    connectTimeout: .milliseconds(connectTimeout.milliseconds),
                    readTimeout: .milliseconds(readTimeout.milliseconds),
                    maximumConnections: max(1, maximumConnectionsPerService / max(1, loops.count)),
                    eventLoop: loop,
                    logger: logger
                )
            }
        }
        self.pools = pools
    }

    /// The pool serving `route` on `eventLoop` (or the first one, for a loop outside the group).
    func pool(for route: UpstreamRoute, on eventLoop: any EventLoop) -> UpstreamConnectionPool? {
        guard let candidates = pools[Self.key(route)] else { return nil }
        return candidates.first { $0.eventLoop === eventLoop } ?? candidates.first
    }

    /// The pools as lifecycle services (they close their connections at shutdown).
    var services: [UpstreamConnectionPool] { pools.keys.sorted().flatMap { pools[$0] ?? [] } }

    private static func key(_ route: UpstreamRoute) -> String { "\(route.host):\(route.port)" }
}
