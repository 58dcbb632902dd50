import Foundation
import ShopkeeperStores
import _CryptoExtras

/// Checks a service account's JWT-bearer assertion as Google's token endpoint does.
struct GoogleAssertionVerifier: Sendable {
    /// How far in the future `iat` may lie.
    static let allowedClockSkewSeconds: Int64 = 60

    let store: SandboxStore

    /// The service account the assertion proves to be, or Google's refusal.
    func verify(_ assertion: String, now: Date = Date()) async throws(GoogleOAuthError) -> GoogleServiceAccountRecord {
        guard let jws = CompactJWS(assertion), let claims = jws.decodedPayload(as: GoogleServiceAccountClaims.self)
        else {
            throw .invalidGrant("Invalid JWT: the assertion is not a signed JWT with iss, scope, aud, iat and exp.")
        }
        guard let account = await store.serviceAccount(email: claims.iss) else {
            throw .invalidGrant("Invalid grant: account not found")
        }
        guard jws.header.alg == "RS256", jws.header.kid == nil || jws.header.kid == account.privateKeyId,
            let key = try? _RSA.Signing.PublicKey(pemRepresentation: account.publicKey),
            jws.hasValidRS256Signature(by: key)
        else { throw .invalidGrant("Invalid JWT Signature.") }
        let seconds = Int64(now.timeIntervalSince1970)
        guard claims.iat <= seconds + Self.allowedClockSkewSeconds, claims.exp > seconds, claims.exp > claims.iat,
            claims.exp - claims.iat <= GoogleServiceAccountClaims.maximumLifetimeSeconds
        else {
            throw .invalidGrant(
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. "
                    + "Check your iat and exp values in the JWT claim.")
        }
        guard claims.aud == account.tokenUri else {
            throw .invalidGrant("Invalid JWT: Failed audience check. The right audience is \(account.tokenUri)")
        }
        guard claims.hasScope(GoogleServiceAccountClaims.androidPublisherScope) else {
            throw GoogleOAuthError(
                status: .badRequest, error: "invalid_scope",
                errorDescription: "Invalid OAuth scope or ID token audience provided.")
        }
        return account
    }
}
