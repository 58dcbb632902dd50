import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// After a write addressed to `/v1/customers/{app_user_id}/...` (consume, aliases, grants...), drops this replica's
/// cached info of that customer at once, so the caller reads its own write even before the change notification
/// arrives.
struct CustomerCacheInvalidationMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    let cache: CustomerInfoCache

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard cache.isEnabled, request.method != .get, request.method != .head,
            let appID = context.caller?.appID, let appUserID = Self.appUserID(in: request.uri.path)
        else {
            return try await next(request, context)
        }
        defer { cache.invalidate(CustomerInfoCache.Key(appID: appID, appUserID: appUserID)) }
        return try await next(request, context)
    }

    /// The customer id of a `/v1/customers/{app_user_id}/...` path.
    static func appUserID(in path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 4, segments[1] == "v1", segments[2] == "customers" else { return nil }
        return try? AppUserID.decode(canonicalSegment: segments[3])
    }
}
