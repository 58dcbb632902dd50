import Crypto
import Foundation
import ShopkeeperStores
import _CryptoExtras

/// Signs the OIDC ID tokens of Pub/Sub pushes as Google does (RS256, `kid` of a key published at
/// `GET /google/oauth2/v3/certs`), with the sandbox's own key.
struct GooglePushSigner: Sendable {
    /// Google's push tokens live an hour.
    static let lifetimeSeconds: Int64 = 3600

    private let signer: RS256Signer
    /// The published key set.
    let keySet: GoogleJSONWebKeySet
    /// The push service account the tokens name.
    let email: String
    /// Its unique id (`sub`, `azp`).
    let accountId: String

    init(key: _RSA.Signing.PrivateKey, email: String) throws {
        let der = key.publicKey.derRepresentation
        let kid = SHA256.hash(data: der).prefix(20).map { String(format: "%02x", $0) }.joined()
        self.signer = try RS256Signer(key: key, keyID: kid)
        self.keySet = GoogleJSONWebKeySet(keys: [try GoogleJSONWebKeySet.Key(publicKey: key.publicKey, kid: kid)])
        self.email = email
        var hash: UInt64 = 1_469_598_103_934_665_603
        for byte in email.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        self.accountId = "1" + String(hash)
    }

    /// A token for a push whose subscription has audience `audience`, issued at `now`.
    func token(audience: String, at now: Date = Date()) throws -> String {
        let iat = Int64(now.timeIntervalSince1970)
        return try signer.sign(
            GooglePushTokenClaims(
                aud: audience, azp: accountId, email: email, sub: accountId, iat: iat, exp: iat + Self.lifetimeSeconds))
    }
}
