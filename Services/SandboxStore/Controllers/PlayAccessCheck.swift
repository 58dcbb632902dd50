import Foundation
import Hummingbird
import ShopkeeperHTTP

/// The Android Publisher API's bearer rule, shared by the sandbox's Play Developer API and its monetization
/// endpoints: an unexpired access token from `/google/token`, whose service account was made for the package in
/// the path.
struct PlayAccessCheck: Sendable {
    let store: SandboxStore
    let traffic: StoreTraffic

    /// The path's package, once the token is checked (``GoogleAPIError/unauthenticated`` without a valid token,
    /// ``GoogleAPIError/permissionDenied`` for another package's).
    func packageName(_ request: Request, _ context: ServiceRequestContext) async throws -> String {
        let packageName = context.parameters.get("packageName") ?? ""
        guard let authorization = request.headers[.authorization], authorization.count > 7,
            authorization.prefix(7).lowercased() == "bearer ",
            case let accessToken = String(authorization.dropFirst(7)),
            let account = await store.accountForAccessToken(accessToken, at: Date())
        else { throw GoogleAPIError.unauthenticated }
        guard account.packageName == packageName else { throw GoogleAPIError.permissionDenied }
        await traffic.presented(accessToken: accessToken)
        return packageName
    }
}
