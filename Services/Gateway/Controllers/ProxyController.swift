import Hummingbird

/// Registers each routing-table prefix, and everything below it, for every method, forwarding to its service.
///
/// A prefix with a `*` segment (`/v1/customers/*/restore`) lies inside a plainer one (`/v1/customers`) that the
/// router matches first; the plainer route's handler hands such paths to the more specific route. (The router
/// cannot hold `/v1/customers/*/…` beside `/v1/customers/**`.)
struct ProxyController {
    let proxy: ReverseProxy
    let routes: [UpstreamRoute]
    let pools: UpstreamPools

    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete]

    func addRoutes(to group: RouterGroup<AuthenticatedContext>) {
        let specific = routes.filter(\.hasWildcard)
        for route in routes {
            let covered =
                route.hasWildcard && routes.contains { !$0.hasWildcard && route.prefix.hasPrefix($0.prefix + "/") }
            if covered { continue }
            let inner = specific.filter { $0.prefix.hasPrefix(route.prefix + "/") }
            for path in [route.prefix, route.prefix + "/**"] {
                for method in Self.methods {
                    group.on(RouterPath(path), method: method) { request, context in
                        let route = inner.first { $0.matches(request.uri.path[...]) } ?? route
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
