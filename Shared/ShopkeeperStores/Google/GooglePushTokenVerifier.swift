import Foundation
import JWTKit

/// Checks the OIDC token Cloud Pub/Sub puts on an authenticated push (`Authorization: Bearer <JWT>`): signed by one
/// of Google's keys (a configured JWKS), issued by `accounts.google.com`, for the configured audience, not expired,
/// and, when emails are configured, by one of those service accounts with a verified email.
package struct GooglePushTokenVerifier: Sendable {
    private let keys: Keys
    package let audience: String
    package let emails: Set<String>

    /// - Parameters:
    ///   - jwksJSON: Google's signing keys as a JWKS (`https://www.googleapis.com/oauth2/v3/certs`).
    ///   - audience: The audience set on the Pub/Sub push subscription.
    ///   - emails: The push service accounts accepted; any when empty.
    package init(jwksJSON: String, audience: String, emails: Set<String> = []) {
        self.keys = Keys(jwksJSON: jwksJSON)
        self.audience = audience
        self.emails = emails
    }

    /// Verifies a push's bearer token; throws when it is not a valid token for this endpoint.
    package func verify(_ token: String) async throws -> GooglePushClaims {
        let claims = try await keys.collection().verify(token, as: GooglePushClaims.self)
        guard claims.aud.value.contains(audience) else { throw GooglePushTokenError.wrongAudience }
        if !emails.isEmpty {
            guard let email = claims.email, emails.contains(email), claims.emailVerified == true else {
                throw GooglePushTokenError.wrongAccount
            }
        }
        return claims
    }
}

/// The key collection, made from the JWKS on first use.
private actor Keys {
    let jwksJSON: String
    private var loaded: JWTKeyCollection?

    init(jwksJSON: String) {
        self.jwksJSON = jwksJSON
    }

    func collection() async throws -> JWTKeyCollection {
        if let loaded { return loaded }
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: jwksJSON)
        loaded = keys
        return keys
    }
}

/// Why a push token was refused (besides a bad signature or an expired token).
package enum GooglePushTokenError: Error, Equatable {
    case wrongAudience
    case wrongAccount
}

/// The claims of a Pub/Sub push OIDC token.
package struct GooglePushClaims: JWTPayload, Equatable {
    package var iss: IssuerClaim
    package var aud: AudienceClaim
    package var exp: ExpirationClaim
    package var iat: IssuedAtClaim?
    package var email: String?
    package var emailVerified: Bool?

    package init(
        iss: String = "https://accounts.google.com", aud: String, exp: Date, iat: Date = Date(), email: String?,
        emailVerified: Bool? = true
    ) {
        self.iss = IssuerClaim(value: iss)
        self.aud = AudienceClaim(value: [aud])
        self.exp = ExpirationClaim(value: exp)
        self.iat = IssuedAtClaim(value: iat)
        self.email = email
        self.emailVerified = emailVerified
    }

    enum CodingKeys: String, CodingKey {
        case iss, aud, exp, iat, email
        case emailVerified = "email_verified"
    }

    package func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
        guard iss.value == "https://accounts.google.com" || iss.value == "accounts.google.com" else {
            throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "not issued by Google")
        }
    }
}
