import Crypto
import Foundation

/// Signs compact JWS with ES256 (ECDSA P-256, SHA-256): StoreKit 2 transactions in the sandbox
/// store (with an `x5c` chain) and App Store Server API bearer tokens in the verifier (with a `kid`).
package struct ES256Signer: Sendable {
    private let key: P256.Signing.PrivateKey
    private let headerSegment: String

    package init(key: P256.Signing.PrivateKey, header: JWSHeader) throws {
        self.key = key
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        self.headerSegment = Base64URL.encode(try encoder.encode(header))
    }

    /// A signer whose header is `{"alg":"ES256","x5c":[leaf, intermediate, root]}`.
    package init(chain: SigningChain) throws {
        try self.init(key: chain.leafKey, header: JWSHeader(alg: "ES256", x5c: try chain.x5c()))
    }

    /// Signs `payload` encoded as JSON.
    package func sign(_ payload: some Encodable) throws -> String {
        try sign(payloadJSON: Array(JSONEncoder().encode(payload)))
    }

    /// Signs raw payload bytes.
    package func sign(payloadJSON: [UInt8]) throws -> String {
        let signingInput = headerSegment + "." + Base64URL.encode(payloadJSON)
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
