import JWTKit

/// A P-256 public key an app registered for its customer tokens (ES256): the developer's server keeps the private
/// key, so Shopkeeper holds nothing that can mint a token. Its id is the tokens' `kid`.
package struct CustomerTokenPublicKey: Sendable, Hashable {
    package var id: String
    /// The key in PEM (`-----BEGIN PUBLIC KEY-----`).
    package var pem: String

    package init(id: String, pem: String) {
        self.id = id
        self.pem = pem
    }

    /// Whether `pem` is a P-256 public key in PEM.
    package static func isValid(pem: String) -> Bool {
        (try? ES256PublicKey(pem: pem)) != nil
    }
}

/// Everything that can sign an app's customer tokens: its HS256 secrets and its ES256 public keys.
package struct CustomerTokenKeys: Sendable, Hashable {
    package var secrets: [CustomerTokenSecret]
    package var publicKeys: [CustomerTokenPublicKey]

    package init(secrets: [CustomerTokenSecret] = [], publicKeys: [CustomerTokenPublicKey] = []) {
        self.secrets = secrets
        self.publicKeys = publicKeys
    }

    /// Whether no token can be valid.
    package var isEmpty: Bool { secrets.isEmpty && publicKeys.isEmpty }
}
