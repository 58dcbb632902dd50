import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The gateway's upstream connection pools: one per distinct service address and event loop, each used only on its
/// loop (a request uses the pool of its client connection's loop, so its upstream I/O stays on that thread). As a lifecycle service it closes their idle connections at shutdown, after the server has drained.
struct UpstreamPools: Service, Sendable {
    private let pools: [String: [NIOLoopBoundBox<UpstreamPool>]]

    init(
        routes: [UpstreamRoute],
        connectTimeout: Duration,
        readTimeout: Duration,
        maximumConnectionsPerService: Int = 256,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton
    ) {
        let loops = Array(eventLoopGroup.makeIterator())
        var pools: [String: [NIOLoopBoundBox<UpstreamPool>]] = [:]
        for route in routes where pools[route.hostHeader] == nil {
            pools[route.hostHeader] = loops.map { loop in
                NIOLoopBoundBox.makeBoxSendingValue(
                    UpstreamPool(
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
    func pools(for route: UpstreamRoute) -> [NIOLoopBoundBox<UpstreamPool>] {
        pools[route.hostHeader] ?? []
    }

    /// The pool serving `route` on `eventLoop` (or the first one, for a loop outside the group).
    func pool(for route: UpstreamRoute, on eventLoop: any EventLoop) -> NIOLoopBoundBox<UpstreamPool>? {
        let candidates = pools(for: route)
        return candidates.first { $0.eventLoop === eventLoop } ?? candidates.first
    }

    func run() async throws {
        try? await gracefulShutdown()
        for box in pools.values.joined() {
            box.eventLoop.execute { box.value.close() }
        }
    }
}
