import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The channel path's connection pools: one per distinct service address and event loop, each used only on its
/// loop. As a lifecycle service it closes their idle connections at shutdown, after the server has drained.
struct UpstreamChannelPools: Service, Sendable {
    private let pools: [String: [NIOLoopBoundBox<UpstreamChannelPool>]]

    init(
        routes: [UpstreamRoute],
        connectTimeout: Duration,
        readTimeout: Duration,
        maximumConnectionsPerService: Int = 256,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton
    ) {
        let loops = Array(eventLoopGroup.makeIterator())
        var pools: [String: [NIOLoopBoundBox<UpstreamChannelPool>]] = [:]
        for route in routes where pools[route.hostHeader] == nil {
            pools[route.hostHeader] = loops.map { loop in
                NIOLoopBoundBox.makeBoxSendingValue(
                    UpstreamChannelPool(
                        host: route.host, port: route.port, eventLoop: loop,
                        connectTimeout: .milliseconds(connectTimeout.milliseconds),
                        readTimeout: .milliseconds(readTimeout.milliseconds),
                        maximumConnections: max(1, maximumConnectionsPerService / max(1, loops.count))),
                    eventLoop: loop)
            }
        }
        self.pools = pools
    }

    /// The pools serving `route`, one per event loop (a request uses the one of its client connection's loop).
    func pools(for route: UpstreamRoute) -> [NIOLoopBoundBox<UpstreamChannelPool>] {
        pools[route.hostHeader] ?? []
    }

    func run() async throws {
        try? await gracefulShutdown()
        for box in pools.values.joined() {
            box.eventLoop.execute { box.value.close() }
        }
    }
}
