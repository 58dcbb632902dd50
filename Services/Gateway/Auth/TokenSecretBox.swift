import Crypto
import Foundation
import ShopkeeperCore

/// Seals customer token secrets for storage with AES-256-GCM under a key derived from the master key
/// (`SHOPKEEPER_MASTER_KEY`), as the verifier seals store credentials (its `SecretBox`; one shared type is a
/// follow-up). The app and secret id are bound as associated data, so a sealed value copied to another row does not
/// open.
struct TokenSecretBox: Sendable {
    private let key: SymmetricKey
    /// A short fingerprint of the key, stored beside sealed values to tell a changed master key from corrupted data.
    let keyID: String

    init(masterKey: String) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(masterKey.utf8)),
            info: Data("shopkeeper customer token secrets v1".utf8),
            outputByteCount: 32
        )
        keyID = SHA256.hash(data: key.withUnsafeBytes { Data($0) }).prefix(4).hexString
    }

    /// The associated data of one secret.
    static func context(appID: String, secretID: String) -> Data {
        Data("\(appID)\n\(secretID)".utf8)
    }

    func seal(_ secret: String, appID: String, secretID: String) throws -> Data {
        let sealed = try AES.GCM.seal(
            Data(secret.utf8), using: key, authenticating: Self.context(appID: appID, secretID: secretID))
        guard let combined = sealed.combined else { throw TokenSecretBoxError.cannotSeal }
        return combined
    }

    /// The secret's text, or `nil` when it was sealed under another master key or does not open.
    func open(_ sealed: Data, appID: String, secretID: String, keyID: String) -> String? {
        guard keyID == self.keyID,
            let box = try? AES.GCM.SealedBox(combined: sealed),
            let plain = try? AES.GCM.open(
                box, using: key, authenticating: Self.context(appID: appID, secretID: secretID))
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }
}

/// AES-GCM could not produce a combined box (it always can with the default nonce).
struct TokenSecretBoxError: Error {
    static let cannotSeal = TokenSecretBoxError()
}
