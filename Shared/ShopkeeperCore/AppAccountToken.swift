import Crypto
import Foundation

/// The App Store `appAccountToken` of a Shopkeeper user: a name-based (version 5, SHA-1) UUID of the app user id,
/// so that the app, the CLI and the verifier all derive the same token from the same user without storing it.
package enum AppAccountToken {
    /// The namespace of Shopkeeper app user ids (a fixed, randomly chosen UUID).
    package static let namespace = UUID(
        uuid: (
            0x6f, 0x9e, 0x2b, 0x43, 0x1c, 0x5d, 0x4a, 0x8e, 0x9b, 0x17, 0x3e, 0x52, 0xa4, 0xc0, 0xd9, 0x61
        ))

    /// The UUID for `appUserID` (RFC 9562 version 5 in ``namespace``).
    package static func uuid(forAppUserID appUserID: String) -> UUID {
        nameBasedUUID(name: appUserID, namespace: namespace)
    }

    /// An RFC 9562 version 5 (SHA-1, name-based) UUID.
    package static func nameBasedUUID(name: String, namespace: UUID) -> UUID {
        let namespaceBytes = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        var digest = Array(Insecure.SHA1.hash(data: namespaceBytes + Array(name.utf8)).prefix(16))
        digest[6] = (digest[6] & 0x0f) | 0x50
        digest[8] = (digest[8] & 0x3f) | 0x80
        return UUID(
            uuid: (
                digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7], digest[8],
                digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]
            ))
    }
}
