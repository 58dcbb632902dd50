import Crypto
import Foundation

/// Seals secrets for storage with AES-256-GCM under a key derived from the master key (`SHOPKEEPER_MASTER_KEY`) and
/// a purpose (the verifier's store credentials, the gateway's customer token secrets), so each purpose has its own
/// key. The caller binds the row the value belongs to as `context` (associated data), so a sealed value copied to
/// another row does not open.
package struct SecretBox: Sendable {
    private let key: SymmetricKey
    /// A short fingerprint of the key, stored beside sealed values to tell a changed master key
    /// from corrupted data.
    package let keyID: String

    /// A box for `purpose` (`"store credentials"`, `"customer token secrets"`): its key is derived with the label
    /// `shopkeeper <purpose> v1`.
    package init(masterKey: String, purpose: String) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(masterKey.utf8)),
            info: Data("shopkeeper \(purpose) v1".utf8),
            outputByteCount: 32
        )
        keyID = SHA256.hash(data: key.withUnsafeBytes { Data($0) }).prefix(4).hexString
    }

    package func seal(_ plaintext: Data, context: String) throws -> Data {
        guard let combined = try AES.GCM.seal(plaintext, using: key, authenticating: Data(context.utf8)).combined else {
            throw SecretBoxError.cannotSeal
        }
        return combined
    }

    package func open(_ sealed: Data, context: String, keyID: String) throws(SecretBoxError) -> Data {
        guard keyID == self.keyID else { throw .otherMasterKey(keyID) }
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key, authenticating: Data(context.utf8))
        } catch {
            throw .corrupted
        }
    }
}

/// Why a sealed value could not be sealed or opened.
package enum SecretBoxError: Error, CustomStringConvertible {
    case cannotSeal
    case otherMasterKey(String)
    case corrupted

    package var description: String {
        switch self {
        case .cannotSeal: "the secret could not be sealed"
        case .otherMasterKey(let id):
            "the stored secret was sealed with another master key (key id \(id)); restore SHOPKEEPER_MASTER_KEY"
        case .corrupted: "the stored secret does not open: corrupted or bound to another row"
        }
    }
}
