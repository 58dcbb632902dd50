import Hummingbird
import ShopkeeperHTTP

/// The gateway's request context: the key identity, once ``APIKeyMiddleware`` has checked it.
struct GatewayRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var identity: KeyIdentity?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.identity = nil
    }
}

/// The context of routes that require an API key: it cannot exist without an identity, so a handler cannot forget
/// the check.
struct AuthenticatedContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let identity: KeyIdentity

    init(context: GatewayRequestContext) throws {
        guard let identity = context.identity else { throw AuthError.missingCredentials }
        self.coreContext = context.coreContext
        self.identity = identity
    }
}
