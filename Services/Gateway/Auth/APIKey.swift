import Crypto
import Foundation
import ShopkeeperCore
import ShopkeeperModels

/// API key text: `pk_` or `sk_` and 32 random base-62 characters (about 190 bits).
enum APIKey {
    static let randomLength = 32

    /// A new random key of `kind`.
    static func generate(kind: APIKeyKind) -> String {
        kind.prefix + RandomToken.base62(length: randomLength)
    }

    /// The kind a well-formed key claims, or `nil` when the text cannot be a key.
    static func kind(of key: String) -> APIKeyKind? {
        guard key.utf8.count == 3 + randomLength else { return nil }
        let kind = APIKeyKind.allCases.first { key.hasPrefix($0.prefix) }
        guard let kind, key.utf8.dropFirst(3).allSatisfy(Self.isAlphanumeric) else { return nil }
        return kind
    }

    /// What is stored and looked up: SHA-256 of the key.
    static func hash(_ key: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(key.utf8)))
    }

    /// The part shown in listings, enough to recognize a key and useless to use it.
    static func displayPrefix(_ key: String) -> String {
        String(key.prefix(10))
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
    }
}
