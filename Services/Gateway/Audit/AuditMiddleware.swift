import HTTPTypes
import Hummingbird
import Logging
import ShopkeeperHTTP
import ShopkeeperModels

/// Who acts in an audited request.
struct AuditCaller: Sendable {
    var actor: ConsoleActor
    var keyID: String?
    var sessionID: String?
    /// The console user, for a user's session.
    var userEmail: String? = nil
    /// The app acted on; `nil` when the path names it (operator routes) or none.
    var appID: String?
}

/// A request context that can say who acts, for the audit log.
protocol AuditedRequestContext: RequestContext {
    /// The caller to record; `nil` when its actions are not audited (a public key's).
    var auditCaller: AuditCaller? { get }
}

/// Records every admin action (``AuditedActions``) once it has been answered: who (the key, or the console session
/// and its key, or the operator), what (method, path, the ids it names, a summary) and the status it was answered
/// with, refusals and failures included. The gateway sees every such call (services are reached only through it),
/// and only it knows which key or session made it.
///
/// A record that cannot be written is logged at `error` and the answer goes out all the same: the action has
/// happened, and failing its answer would only make the client retry it. A catalog import's dry run changes
/// nothing and is not recorded.
struct AuditMiddleware<Context: AuditedRequestContext>: RouterMiddleware {
    let log: any AuditLogRepository

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard !ConsoleSessions.isSafe(request.method), let caller = context.auditCaller,
            let (action, targets) = AuditedActions.match(method: request.method, path: request.uri.path),
            !Self.isDryRun(request)
        else { return try await next(request, context) }
        do {
            let response = try await next(request, context)
            await record(action, targets, caller: caller, status: response.status.code, request, context)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            await record(action, targets, caller: caller, status: status, request, context)
            throw error
        }
    }

    private static func isDryRun(_ request: Request) -> Bool {
        (try? QueryFlag.value("dry_run", in: request.uri.queryParameters)) == true
    }

    private func record(
        _ action: AuditedAction, _ targets: [String: String], caller: AuditCaller, status: Int, _ request: Request,
        _ context: Context
    ) async {
        let record = AuditRecord(
            appID: caller.appID ?? targets["app_id"], actor: caller.actor, keyID: caller.keyID,
            sessionID: caller.sessionID, userEmail: caller.userEmail, method: request.method.rawValue,
            path: request.uri.path,
            action: action.action, targets: targets, summary: action.summary(with: targets), status: status,
            requestID: context.requestID, idempotencyKey: request.headers[Self.idempotencyKey])
        do {
            try await log.record(record)
        } catch {
            context.logger.error(
                "audit log entry not written",
                metadata: [
                    "action": "\(action.action)", "status": "\(status)", "error": "\(String(reflecting: error))",
                ])
        }
    }

    static var idempotencyKey: HTTPField.Name { "idempotency-key".fieldName }
}

extension AuthenticatedContext: AuditedRequestContext {
    var auditCaller: AuditCaller? {
        if let session {
            return AuditCaller(
                actor: session.actor, keyID: session.keyID, sessionID: session.sessionID,
                userEmail: session.user?.email, appID: session.appID)
        }
        guard identity.kind == .secret else { return nil }
        return AuditCaller(actor: .secretKey, keyID: identity.keyID, appID: identity.appID)
    }
}

extension GatewayRequestContext: AuditedRequestContext {
    /// On the operator routes, where this context is used: the operator, by key or by console session.
    var auditCaller: AuditCaller? {
        AuditCaller(actor: .operator, sessionID: session?.sessionID)
    }
}
