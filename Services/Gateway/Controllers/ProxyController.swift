import Hummingbird
import NIOCore

/// Registers each forwarded prefix of the route table, and everything below it, for every method, forwarding to its
/// service.
///
/// A prefix with a `*` segment (`/v1/customers/*/restore`) lies inside a plainer one (`/v1/customers`) that the
/// router matches first; the plainer route's handler hands such paths to the more specific route. (The router
/// cannot hold `/v1/customers/*/…` beside `/v1/customers/**`.)
///
/// Keyless prefixes (store notifications) are registered outside the API key check and forwarded with no app
/// identity; every other prefix needs a key. Requests go out through the gateway's one ``Forwarder``.
struct ProxyController {
    let forwarder: Forwarder
    let routes: RouteTable
    /// The customer boundary: checked before anything is forwarded or answered from the micro-cache.
    var gate = CustomerBoundaryGate()

    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete]

    /// The routes that need an API key.
    func addRoutes(to group: RouterGroup<AuthenticatedContext>) {
        register(routes.forwarded.filter { !$0.keyless }, on: group) { context in
            (context.identity, context.eventLoop, context.requestID)
        }
    }

    /// The keyless routes, on the router itself (no API key middleware).
    func addKeylessRoutes(to router: Router<GatewayRequestContext>) {
        register(routes.forwarded.filter(\.keyless), on: router.group()) { context in
            (nil, context.eventLoop, context.requestID)
        }
    }

    private func register<Context: RequestContext>(
        _ registered: [ForwardedRoute], on group: RouterGroup<Context>,
        _ details: @escaping @Sendable (Context) -> (KeyIdentity?, any EventLoop, String?)
    ) {
        let specific = registered.filter(\.upstream.hasWildcard)
        for forwarded in registered {
            let route = forwarded.upstream
            let covered =
                route.hasWildcard
                && registered.contains { !$0.upstream.hasWildcard && route.prefix.hasPrefix($0.upstream.prefix + "/") }
            if covered { continue }
            let inner = specific.filter { $0.upstream.prefix.hasPrefix(route.prefix + "/") }
            for path in [route.prefix, route.prefix + "/**"] {
                for method in Self.methods {
                    group.on(RouterPath(path), method: method) { request, context in
                        let (identity, eventLoop, requestID) = details(context)
                        let forwarded = inner.first { $0.upstream.matches(request.uri.path[...]) } ?? forwarded
                        let named = try CustomerPath(target: request.head.path ?? "/")
                        var customer: String?
                        if let identity {
                            customer = try await gate.customer(
                                path: request.uri.path[...], named: named?.appUserID, headers: request.headers,
                                identity: identity)
                        }
                        // Signed for the target the client sent, before the customer id is respelled.
                        let signing = AnswerSigning(
                            signer: identity?.answerSigner, target: request.head.path,
                            nonce: request.headers[AnswerSigner.nonceField])
                        return try await forwarder.forward(
                            named.map { request.forwarding(to: $0) } ?? request, to: forwarded, identity: identity,
                            customer: customer, requestID: requestID, signing: signing, on: eventLoop)
                    }
                }
            }
        }
    }
}

extension Request {
    /// The request with its target spelled as ``CustomerPath`` forwards it (the customer id's canonical spelling).
    fileprivate func forwarding(to path: CustomerPath) -> Request {
        guard path.forwardedTarget != head.path else { return self }
        var head = self.head
        head.path = path.forwardedTarget
        return Request(head: head, body: body)
    }
}
