import Hummingbird
import Logging
import ShopkeeperCore
import Synchronization

/// Accepts the caller's `X-Request-ID` when it is sane, or generates one; puts it in the logger's metadata
/// (`request_id`, read back by ``RequestContext/requestID`` for downstream calls) and on the response.
package struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    private let generator: RequestIDGenerator

    package init(generator: RequestIDGenerator = RequestIDGenerator()) {
        self.generator = generator
    }

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let id = generator.id(given: request.headers[.requestID])
        context.logger[metadataKey: "request_id"] = .string(id)
        var response = try await next(request, context)
        response.headers[.requestID] = id
        return response
    }
}

extension RequestContext {
    /// The id ``RequestIDMiddleware`` chose for this request.
    package var requestID: String? {
        logger[metadataKey: "request_id"]?.description
    }
}

/// Request ids without a system call each: a random per-process prefix and a counter (`Xk3f9QbZ2mLp-1a7`).
///
/// Ids only need to be unique, not secret; 72 random bits keep replicas apart.
package final class RequestIDGenerator: Sendable {
    package init() {}

    private let prefix = RandomToken.base62(length: 12) + "-"
    private let counter = Atomic<UInt64>(0)

    package func next() -> String {
        let value = counter.add(1, ordering: .relaxed).newValue
        return prefix + String(value, radix: 36)
    }

    /// The caller's id when it is acceptable, or a new one.
    package func id(given: String?) -> String {
        if let given, Self.isAcceptable(given) { return given }
        return next()
    }

    /// 1 to 128 characters of letters, digits, `-`, `_`, `.`, `:`; anything else is replaced, never trusted.
    package static func isAcceptable(_ id: String) -> Bool {
        guard (1...128).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == 0x2d || byte == 0x5f || byte == 0x2e || byte == 0x3a
        }
    }

}
