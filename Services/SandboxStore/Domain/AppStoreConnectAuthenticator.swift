import Foundation
import HTTPTypes
import ShopkeeperModels
import ShopkeeperStores

/// Checks an App Store Connect API bearer token as Apple does, and refuses every failure alike.
///
/// The token must be a compact JWS with `alg` ES256, `typ` JWT and the `kid` of a key this sandbox issued
/// (`POST /sandbox/apple/api-keys`), signed by that key; its claims must name the key's issuer (`iss`), `aud`
/// `appstoreconnect-v1`, an `iat` not in the future (60 s of clock skew allowed) and an `exp` that has not passed
/// and lies at most 20 minutes after `iat` (Apple refuses longer-lived tokens on these endpoints).
struct AppStoreConnectAuthenticator: Sendable {
    let store: SandboxStore

    /// The issuer the caller's key belongs to.
    func authenticate(_ headers: HTTPFields, now: Date = Date()) async throws(AppStoreConnectAPIError) -> String {
        guard
            let signed = await AppleBearerAuthenticator.signedClaims(
                headers, store: store, as: AppStoreConnectClaims.self)
        else { throw .notAuthorized }
        let (key, claims) = signed
        let seconds = Int64(now.timeIntervalSince1970)
        guard claims.iss == key.issuerId, claims.aud == AppStoreConnectClaims.audience,
            claims.iat <= seconds + AppleBearerAuthenticator.allowedClockSkewSeconds, claims.exp > seconds,
            claims.exp > claims.iat, claims.exp - claims.iat <= AppStoreConnectClaims.maximumLifetimeSeconds
        else { throw .notAuthorized }
        return key.issuerId
    }

    /// The App Apple IDs of the apps `issuer` has keys for, with their bundle ids.
    func apps(ofIssuer issuer: String) async -> [(id: Int64, bundleId: String)] {
        await store.bundleIds(ofIssuer: issuer).sorted().map { (AppleAppIdentity.appAppleId(bundleId: $0), $0) }
    }
}

/// App Store Connect API failures, in its JSON:API error document.
enum AppStoreConnectAPIError: Error, Equatable {
    /// The bearer token is missing or refused (Apple never says why).
    case notAuthorized
    /// No such resource (or not the caller's).
    case notFound(String)
    /// A query parameter Apple would refuse.
    case parameterError(String)

    var status: HTTPResponse.Status {
        switch self {
        case .notAuthorized: .unauthorized
        case .notFound: .notFound
        case .parameterError: .badRequest
        }
    }

    var document: AppStoreConnectErrors {
        switch self {
        case .notAuthorized:
            AppStoreConnectErrors(errors: [
                .init(
                    status: "401", code: "NOT_AUTHORIZED", title: "Authentication credentials are missing or invalid.",
                    detail:
                        "Provide a properly configured and signed bearer token, and make sure that it has not expired.")
            ])
        case .notFound(let what):
            AppStoreConnectErrors(errors: [
                .init(
                    status: "404", code: "NOT_FOUND", title: "The specified resource does not exist",
                    detail: "There is no resource of type '\(what)' with this id.")
            ])
        case .parameterError(let detail):
            AppStoreConnectErrors(errors: [
                .init(
                    status: "400", code: "PARAMETER_ERROR.INVALID", title: "A parameter has an invalid value",
                    detail: detail)
            ])
        }
    }
}
