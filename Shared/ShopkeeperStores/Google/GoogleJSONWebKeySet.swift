import Foundation
import _CryptoExtras

/// A JSON Web Key Set as Google publishes its OIDC signing keys (`https://www.googleapis.com/oauth2/v3/certs`):
/// RSA public keys by `kid`.
package struct GoogleJSONWebKeySet: Codable, Sendable, Equatable {
    package var keys: [Key]

    package init(keys: [Key]) {
        self.keys = keys
    }

    /// One RSA key (RFC 7517): modulus and exponent base64url without padding.
    package struct Key: Codable, Sendable, Equatable {
        /// `RSA`.
        package var kty: String
        /// `RS256`.
        package var alg: String?
        /// `sig`.
        package var use: String?
        package var kid: String?
        /// The modulus, base64url.
        package var n: String
        /// The public exponent, base64url (`AQAB`).
        package var e: String

        package init(
            kty: String = "RSA", alg: String? = "RS256", use: String? = "sig", kid: String?, n: String, e: String
        ) {
            self.kty = kty
            self.alg = alg
            self.use = use
            self.kid = kid
            self.n = n
            self.e = e
        }

        /// The JWK of `publicKey`.
        package init(publicKey: _RSA.Signing.PublicKey, kid: String) throws {
            let primitives = try publicKey.getKeyPrimitives()
            self.init(
                kid: kid, n: Base64URL.encode(primitives.modulus), e: Base64URL.encode(primitives.publicExponent))
        }

        /// The RSA public key; `nil` when this is not an RSA key of at least 2048 bits.
        package var publicKey: _RSA.Signing.PublicKey? {
            guard kty == "RSA", let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e) else {
                return nil
            }
            return try? _RSA.Signing.PublicKey(n: modulus, e: exponent)
        }
    }

    /// The key with `kid`.
    package func key(id kid: String) -> Key? {
        keys.first { $0.kid == kid }
    }
}
