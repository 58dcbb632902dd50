import Crypto
import Foundation
import ShopkeeperCore

/// Seals store credentials for storage with AES-256-GCM under a key derived from the master key
/// (`SHOPKEEPER_MASTER_KEY`). The app and store are bound as associated data, so a sealed value
/// copied to another app's row does not open.
struct SecretBox: Sendable {
    private let key: SymmetricKey
    /// A short fingerprint of the key, stored beside sealed values to tell a changed master key
    /// from corrupted data.
    let keyID: String

    init(masterKey: String) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(masterKey.utf8)),
            info: Data("shopkeeper store credentials v1".utf8),
            outputByteCount: 32
        )
        keyID = SHA256.hash(data: key.withUnsafeBytes { Data($0) }).prefix(4).hexString
    }

    func seal(_ plaintext: Data, context: String) throws -> Data {
        guard let combined = try AES.GCM.seal(plaintext, using: key, authenticating: Data(context.utf8)).combined else {
            throw SecretBoxError.cannotSeal
        }
        return combined
    }

    func open(_ sealed: Data, context: String, keyID: String) throws(SecretBoxError) -> Data {
        guard keyID == self.keyID else { throw .otherMasterKey(keyID) }
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key, authenticating: Data(context.utf8))
        } catch {
            throw .corrupted
        }
    }
}

enum SecretBoxError: Error, CustomStringConvertible {
    case cannotSeal
    case otherMasterKey(String)
    case corrupted

    var description: String {
        switch self {
        case .cannotSeal: "the credentials could not be sealed"
        case .otherMasterKey(let id):
            "stored credentials were sealed with another master key (key id \(id)); restore SHOPKEEPER_MASTER_KEY"
        case .corrupted: "stored credentials do not open: corrupted or bound to another app"
        }
    }
}
