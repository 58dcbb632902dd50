import Foundation
import JWTKit

/// Customer tokens: short-lived JWTs (HS256, or ES256) that the developer's own server mints for one app user, and that a
/// public-key request carries in `Shopkeeper-Customer-Token` when its app's customer boundary is `signed`.
package enum CustomerToken {
    /// The request header that carries a customer token.
    package static let headerName = "Shopkeeper-Customer-Token"
    /// The longest a token may be valid (`exp` after `iat`, or after now without `iat`).
    package static let maximumLifetime: TimeInterval = 24 * 3600
    /// How far the minting server's clock may be ahead of the gateway's (`iat` in the future).
    package static let clockSkew: TimeInterval = 60

    /// A token for `subject`, valid from `now` for `lifetime` seconds, signed with `secret` (its id, when not empty,
    /// as `kid`).
    package static func mint(
        subject: String, lifetime: TimeInterval, secret: CustomerTokenSecret, now: Date = Date()
    ) async throws -> String {
        let keys = JWTKeyCollection()
        let kid = secret.id.isEmpty ? nil : JWKIdentifier(string: secret.id)
        await keys.add(hmac: HMACKey(from: secret.secret), digestAlgorithm: .sha256, kid: kid)
        let claims = CustomerTokenClaims(
            subject: subject, issuedAt: now, expires: now.addingTimeInterval(lifetime))
        return try await keys.sign(claims, kid: kid)
    }

    /// A token for `subject` signed with a P-256 private key in PEM (ES256), `keyID` (the registered public key's
    /// id, when not empty) as `kid`.
    package static func mint(
        subject: String, lifetime: TimeInterval, privateKeyPEM: String, keyID: String, now: Date = Date()
    ) async throws -> String {
        let keys = JWTKeyCollection()
        let kid = keyID.isEmpty ? nil : JWKIdentifier(string: keyID)
        await keys.add(ecdsa: try ES256PrivateKey(pem: privateKeyPEM), kid: kid)
        let claims = CustomerTokenClaims(
            subject: subject, issuedAt: now, expires: now.addingTimeInterval(lifetime))
        return try await keys.sign(claims, kid: kid)
    }
}
