import Hummingbird
import NIOCore
import Prometheus

/// `/metrics` in the Prometheus text format, from the registry `main` bootstrapped swift-metrics with.
package struct MetricsController<Context: RequestContext>: Sendable {
    private let registry: PrometheusCollectorRegistry

    package init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    package var endpoints: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get("/metrics") { _, _ in
            var buffer: [UInt8] = []
            buffer.reserveCapacity(4096)
            self.registry.emit(into: &buffer)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4", .contentLength: String(buffer.count)],
                body: .init(byteBuffer: ByteBuffer(bytes: buffer))
            )
        }
        return routes
    }
}
