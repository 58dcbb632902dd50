import Foundation

/// The claims of the bearer token that authorizes an App Store Connect API call: an ES256 JWT signed with an App
/// Store Connect API (team) key, header `{"alg":"ES256","kid":<key id>,"typ":"JWT"}`, as Apple's "Generating Tokens
/// for API Requests" describes it. Unlike the App Store Server API's token it names no bundle id.
///
/// The verifier signs them; the sandbox store checks them as Apple does.
package struct AppStoreConnectClaims: Codable, Sendable, Equatable {
    /// The only audience Apple accepts.
    package static let audience = "appstoreconnect-v1"
    /// Apple refuses tokens that expire more than 20 minutes into the future.
    package static let maximumLifetimeSeconds: Int64 = 20 * 60

    /// The issuer id of the App Store Connect team that owns the key.
    package var iss: String
    /// Issued at, UNIX seconds.
    package var iat: Int64
    /// Expires at, UNIX seconds; at most 20 minutes after `iat`.
    package var exp: Int64
    /// Always ``audience``.
    package var aud: String

    package init(iss: String, iat: Int64, exp: Int64, aud: String = audience) {
        self.iss = iss
        self.iat = iat
        self.exp = exp
        self.aud = aud
    }

    /// Claims issued at `now`, valid for `lifetime` seconds (Apple allows at most 1200).
    package init(issuerID: String, now: Date = Date(), lifetime: Int64 = maximumLifetimeSeconds) {
        let issuedAt = Int64(now.timeIntervalSince1970)
        self.init(iss: issuerID, iat: issuedAt, exp: issuedAt + min(lifetime, Self.maximumLifetimeSeconds))
    }
}
