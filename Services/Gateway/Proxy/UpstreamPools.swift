import Logging
import NIOCore

/// One connection pool per distinct service address in the routing table.
struct UpstreamPools: Sendable {
    private let pools: [String: UpstreamConnectionPool]

    init(routes: [UpstreamRoute], connectTimeout: Duration, readTimeout: Duration, logger: Logger) {
        var pools: [String: UpstreamConnectionPool] = [:]
        for route in routes where pools[Self.key(route)] == nil {
            pools[Self.key(route)] = UpstreamConnectionPool(
                host: route.host,
                port: route.port,
                connectTimeout: .milliseconds(connectTimeout.milliseconds),
                readTimeout: .milliseconds(readTimeout.milliseconds),
                logger: logger
            )
        }
        self.pools = pools
    }

    /// The pool serving `route`.
    func pool(for route: UpstreamRoute) -> UpstreamConnectionPool? {
        pools[Self.key(route)]
    }

    /// The pools as lifecycle services (they close their connections at shutdown).
    var services: [UpstreamConnectionPool] { pools.keys.sorted().compactMap { pools[$0] } }

    private static func key(_ route: UpstreamRoute) -> String { "\(route.host):\(route.port)" }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
