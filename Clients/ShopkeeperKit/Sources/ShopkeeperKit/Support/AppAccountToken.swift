import Foundation

/// The `appAccountToken` Shopkeeper expects on an App Store purchase: the RFC 9562 version 5 (SHA-1, name-based)
/// UUID of the app user id in Shopkeeper's namespace. The server refuses a purchase whose token was made for
/// another customer (`403 app_account_token_mismatch`), so a purchase cannot be presented by someone else.
public enum AppAccountToken {
    /// Shopkeeper's namespace of app user ids (the server's `AppAccountToken.namespace`).
    public static let namespace = UUID(
        uuid: (0x6f, 0x9e, 0x2b, 0x43, 0x1c, 0x5d, 0x4a, 0x8e, 0x9b, 0x17, 0x3e, 0x52, 0xa4, 0xc0, 0xd9, 0x61))

    /// The token of `appUserID`.
    public static func uuid(forAppUserID appUserID: String) -> UUID {
        let namespaceBytes = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        var digest = Array(SHA1.hash(namespaceBytes + Array(appUserID.utf8)).prefix(16))
        digest[6] = (digest[6] & 0x0f) | 0x50
        digest[8] = (digest[8] & 0x3f) | 0x80
        return UUID(
            uuid: (
                digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7], digest[8],
                digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]
            ))
    }
}
