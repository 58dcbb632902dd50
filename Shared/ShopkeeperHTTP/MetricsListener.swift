import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// `/metrics` on a listener of its own, for a service whose main port is public (the gateway): the metrics name
/// routes, apps' traffic and failures, which are for the operator's scraper, not for anyone who can reach the API.
/// The internal services serve `/metrics` on their own port, which is not reachable from outside either.
package enum MetricsListener {
    /// A lifecycle service that serves `registry` at `/metrics` on `host:port` (port 0: any free port) and calls
    /// `onListening` with the bound port once it listens. Run it among the application's services: it stops with
    /// them at graceful shutdown, after the main server has drained.
    package static func make(
        host: String,
        port: Int,
        registry: PrometheusCollectorRegistry,
        logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some Service {
        let router = Router(context: BasicRequestContext.self)
        router.addRoutes(MetricsController<BasicRequestContext>(registry: registry).endpoints)
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}
