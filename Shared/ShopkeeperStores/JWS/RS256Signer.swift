import Crypto
import Foundation
import _CryptoExtras

/// Signs compact JWS with RS256 (RSASSA-PKCS1-v1_5, SHA-256): the assertions a Google service
/// account exchanges for an access token.
package struct RS256Signer: Sendable {
    private let key: _RSA.Signing.PrivateKey
    private let headerSegment: String

    /// A signer whose header is `{"alg":"RS256","kid":<keyID>,"typ":"JWT"}`.
    package init(key: _RSA.Signing.PrivateKey, keyID: String?) throws {
        self.key = key
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        self.headerSegment = Base64URL.encode(try encoder.encode(JWSHeader(alg: "RS256", kid: keyID, typ: "JWT")))
    }

    /// A signer for a service-account key file: its `private_key` (PEM) and `private_key_id`.
    package init(serviceAccount: GoogleServiceAccountKey) throws {
        try self.init(
            key: try _RSA.Signing.PrivateKey(pemRepresentation: serviceAccount.privateKey),
            keyID: serviceAccount.privateKeyId
        )
    }

    /// Signs `payload` encoded as JSON.
    package func sign(_ payload: some Encodable) throws -> String {
        let signingInput = headerSegment + "." + Base64URL.encode(try JSONEncoder().encode(payload))
        let signature = try key.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}

extension CompactJWS {
    /// Whether `alg` is ES256 and the signature is `key`'s over the signing input.
    package func hasValidES256Signature(by key: P256.Signing.PublicKey) -> Bool {
        guard header.alg == "ES256",
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: self.signature)
        else { return false }
        return key.isValidSignature(signature, for: Data(signingInput.utf8))
    }

    /// Whether `alg` is RS256 and the signature is `key`'s (PKCS#1 v1.5, SHA-256) over the signing input.
    package func hasValidRS256Signature(by key: _RSA.Signing.PublicKey) -> Bool {
        guard header.alg == "RS256" else { return false }
        return key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: self.signature), for: Data(signingInput.utf8),
            padding: .insecurePKCS1v1_5)
    }

    /// The payload decoded as JSON `T`, or `nil` when it is not.
    package func decodedPayload<T: Decodable>(as _: T.Type = T.self) -> T? {
        try? JSONDecoder().decode(T.self, from: Data(payload))
    }
}
