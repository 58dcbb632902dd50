import Foundation

/// The claims of the bearer token that authorizes an App Store Server API call: an ES256 JWT
/// signed with an App Store Connect in-app purchase key, header `{"alg":"ES256","kid":<key id>,"typ":"JWT"}`.
///
/// The verifier signs them; the sandbox store checks them as Apple does.
package struct AppStoreServerAPIClaims: Codable, Sendable, Equatable {
    /// The only audience Apple accepts.
    package static let audience = "appstoreconnect-v1"
    /// The longest lifetime (`exp - iat`) Apple accepts.
    package static let maximumLifetimeSeconds: Int64 = 3600

    /// The issuer id of the App Store Connect team that owns the key.
    package var iss: String
    /// Issued at, UNIX seconds. Apple's documentation lists it, but Apple's own App Store Server Library sends none
    /// (and Apple accepts that): the sandbox store takes a token without it.
    package var iat: Int64?
    /// Expires at, UNIX seconds; at most an hour after `iat` (without `iat`, at most an hour from now).
    package var exp: Int64
    /// Always ``audience``.
    package var aud: String
    /// The bundle id of the app the call is about.
    package var bid: String
    /// An optional one-time value.
    package var nonce: String?

    package init(iss: String, iat: Int64?, exp: Int64, aud: String = audience, bid: String, nonce: String? = nil) {
        self.iss = iss
        self.iat = iat
        self.exp = exp
        self.aud = aud
        self.bid = bid
        self.nonce = nonce
    }

    /// Claims issued at `now`, valid for `lifetime` seconds (Apple allows at most 3600).
    package init(issuerID: String, bundleID: String, now: Date = Date(), lifetime: Int64 = 1200) {
        let issuedAt = Int64(now.timeIntervalSince1970)
        self.init(iss: issuerID, iat: issuedAt, exp: issuedAt + lifetime, bid: bundleID)
    }
}
