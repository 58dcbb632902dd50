import Foundation

/// The claims of the OIDC ID token Pub/Sub puts in `Authorization: Bearer` of an authenticated push, signed RS256 by
/// one of Google's keys (`https://www.googleapis.com/oauth2/v3/certs`), with Google's names and types (dates in UNIX
/// seconds): what the sandbox store signs. ``GooglePushTokenVerifier`` checks them as ``GooglePushClaims``.
package struct GooglePushTokenClaims: Codable, Sendable, Equatable {
    /// Google's issuers: `https://accounts.google.com` (or `accounts.google.com`).
    package static let issuers: Set<String> = ["https://accounts.google.com", "accounts.google.com"]

    /// `https://accounts.google.com`.
    package var iss: String
    /// The audience configured on the push subscription (by default its endpoint URL).
    package var aud: String
    /// The push service account's unique id.
    package var azp: String?
    /// The service account the push subscription authenticates as.
    package var email: String?
    package var email_verified: Bool?
    package var sub: String?
    /// UNIX seconds.
    package var iat: Int64
    /// UNIX seconds; Google's tokens live an hour.
    package var exp: Int64

    package init(
        iss: String = "https://accounts.google.com", aud: String, azp: String?, email: String?,
        emailVerified: Bool? = true, sub: String?, iat: Int64, exp: Int64
    ) {
        self.iss = iss
        self.aud = aud
        self.azp = azp
        self.email = email
        self.email_verified = emailVerified
        self.sub = sub
        self.iat = iat
        self.exp = exp
    }
}
