import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// SHA-256, streaming (a content file of any size is hashed in constant memory): CryptoKit's on Apple platforms,
/// swift-crypto's (the same API) elsewhere.
struct SHA256Hasher {
    private var hasher = SHA256()

    mutating func update(_ data: Data) { hasher.update(data: data) }

    mutating func finalize() -> [UInt8] { Array(hasher.finalize()) }

    /// Lowercase hex of the SHA-256 of `data`.
    static func hex(of data: Data) -> String {
        var hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalize().hexString
    }

    /// Lowercase hex of the SHA-256 of a file, read in 1 MiB pieces.
    static func hex(ofFileAt url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256Hasher()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
        return hasher.finalize().hexString
    }
}

/// SHA-1, only for name-based UUIDs (``AppAccountToken``; not for security).
enum SHA1 {
    static func hash(_ message: [UInt8]) -> [UInt8] {
        Array(Insecure.SHA1.hash(data: message))
    }
}

extension Array where Element == UInt8 {
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
