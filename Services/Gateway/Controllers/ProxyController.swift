import Hummingbird

/// Registers each routing-table prefix, and everything below it, for every method, forwarding to its service.
struct ProxyController {
    let proxy: ReverseProxy
    let routes: [UpstreamRoute]
    let pools: UpstreamPools

    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete]

    func addRoutes(to group: RouterGroup<AuthenticatedContext>) {
        for route in routes {
            for path in [route.prefix, route.prefix + "/**"] {
                for method in Self.methods {
                    group.on(RouterPath(path), method: method) { request, context in
                        guard let pool = pools.pool(for: route, on: context.eventLoop) else {
                            throw GatewayError.upstreamUnavailable(service: route.service)
                        }
                        return try await proxy.forward(
                            request,
                            identity: context.identity,
                            requestID: context.requestID,
                            route: route,
                            pool: pool,
                            logger: context.logger
                        )
                    }
                }
            }
        }
    }
}
