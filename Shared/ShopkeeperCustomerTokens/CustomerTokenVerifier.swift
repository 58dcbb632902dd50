import Foundation
import JWTKit

/// Checks customer tokens against an app's keys and returns the app user id they prove.
///
/// A token must be a compact JWS signed with one of the app's HS256 secrets or ES256 public keys (its `kid` picks
/// one, else each is tried; each key verifies only its own algorithm, so a public key's text is never an HMAC key),
/// name a non-empty `sub`, carry `exp` in the future and be valid for at most ``CustomerToken/maximumLifetime``.
package struct CustomerTokenVerifier: Sendable {
    package let keys: CustomerTokenKeys

    package init(keys: CustomerTokenKeys) {
        self.keys = keys
    }

    package init(secrets: [CustomerTokenSecret]) {
        self.init(keys: CustomerTokenKeys(secrets: secrets))
    }

    /// The subject (app user id) of `token`, or why it is refused.
    package func subject(of token: String, now: Date = Date()) async throws(CustomerTokenRejection) -> String {
        guard !keys.isEmpty else { throw .noSecret }
        guard token.utf8.count <= 4096, token.split(separator: ".", omittingEmptySubsequences: false).count == 3
        else { throw .malformed }
        let collection = JWTKeyCollection()
        for secret in keys.secrets {
            await collection.add(
                hmac: HMACKey(from: secret.secret), digestAlgorithm: .sha256, kid: JWKIdentifier(string: secret.id))
        }
        for key in keys.publicKeys {
            // Checked when registered; one that no longer parses verifies nothing.
            guard let publicKey = try? ES256PublicKey(pem: key.pem) else { continue }
            await collection.add(ecdsa: publicKey, kid: JWKIdentifier(string: key.id))
        }
        let claims: CustomerTokenClaims
        do {
            claims = try await collection.verify(token, as: CustomerTokenClaims.self, iteratingKeys: true)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed
        }
        return try Self.check(claims, now: now)
    }

    /// The time and subject rules, on claims whose signature holds.
    static func check(_ claims: CustomerTokenClaims, now: Date) throws(CustomerTokenRejection) -> String {
        guard let expires = claims.exp?.value else { throw .missingExpiry }
        let start = claims.iat?.value ?? now
        if start > now.addingTimeInterval(CustomerToken.clockSkew) { throw .notYetValid }
        guard expires.timeIntervalSince(start) <= CustomerToken.maximumLifetime,
            expires.timeIntervalSince(now) <= CustomerToken.maximumLifetime
        else { throw .lifetimeTooLong }
        guard expires > now else { throw .expired }
        let subject = claims.sub.value
        guard !subject.isEmpty, subject.count <= 256 else { throw .malformed }
        return subject
    }
}

/// Why a customer token was refused.
package enum CustomerTokenRejection: Error, Equatable, Sendable {
    /// Not a compact JWS with readable claims.
    case malformed
    /// No secret of the app signed it.
    case badSignature
    /// Its `exp` has passed.
    case expired
    /// It has no `exp`.
    case missingExpiry
    /// It is valid for longer than ``CustomerToken/maximumLifetime``.
    case lifetimeTooLong
    /// Its `iat` lies in the future beyond the allowed clock skew.
    case notYetValid
    /// The app has no signing secret or public key: no token can be valid.
    case noSecret
}
