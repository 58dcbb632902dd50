import Crypto
import Foundation
import Hummingbird
import ShopkeeperHTTP

/// Guards the operator API with the operator key from the environment (compared in constant time), or a console
/// session opened with it (its changes held to the CSRF rules, ``ConsoleSessions``). Without a configured key the
/// operator API refuses everything.
struct OperatorAuthMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let operatorKey: String?
    let sessions: ConsoleSessions

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let operatorKey else { throw AuthError.operatorKeyRequired }
        guard let given = APIKeyMiddleware.bearerToken(request.headers[.authorization]) else {
            guard request.headers[.authorization] == nil, let session = try await sessions.authenticate(request),
                session.actor == .operator
            else { throw AuthError.operatorKeyRequired }
            var context = context
            context.session = session
            return try await next(request, context)
        }
        // Compare digests so the comparison takes the same time whatever the inputs' lengths.
        let expected = SHA256.hash(data: Data(operatorKey.utf8))
        let actual = SHA256.hash(data: Data(given.utf8))
        guard expected == actual else { throw AuthError.operatorKeyRequired }
        return try await next(request, context)
    }
}
