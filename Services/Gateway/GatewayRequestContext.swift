import Hummingbird
import NIOCore
import ShopkeeperHTTP

/// The gateway's request context: the key identity, once ``APIKeyMiddleware`` has checked it.
struct GatewayRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var identity: KeyIdentity?
    /// The console session the request came through (its cookie), once a middleware has checked it.
    var session: ConsoleSession?
    /// The event loop of the client's connection: upstream calls use connections on the same loop, so a request
    /// stays on one thread from start to end.
    let eventLoop: any EventLoop
    /// The client connection, for its peer address (a public key's per-client rate limit).
    private let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.identity = nil
        self.session = nil
        self.eventLoop = source.channel.eventLoop
        self.channel = source.channel
    }

    /// The address the client's connection comes from (`nil` when it is not a TCP connection).
    var peer: SocketAddress? { channel.remoteAddress }
}

/// The context of routes that require an API key: it cannot exist without an identity, so a handler cannot forget
/// the check.
struct AuthenticatedContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let identity: KeyIdentity
    /// The console session the identity came from; `nil` for a key sent as `Authorization: Bearer`.
    let session: ConsoleSession?
    let eventLoop: any EventLoop

    init(context: GatewayRequestContext) throws {
        guard let identity = context.identity else { throw AuthError.missingCredentials }
        self.coreContext = context.coreContext
        self.identity = identity
        self.session = context.session
        self.eventLoop = context.eventLoop
    }
}

extension AuthenticatedContext {
    /// The app of a secret key (or its console session): the only caller of the app's admin endpoints.
    func secretKeyApp() throws(AuthError) -> String {
        guard identity.kind == .secret else { throw AuthError.secretKeyRequired }
        return identity.appID
    }
}
