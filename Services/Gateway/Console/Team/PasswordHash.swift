import Crypto
import Foundation
import NIOPosix
import _CryptoExtras

/// Console users' passwords, hashed with scrypt (RFC 7914, swift-crypto's `KDF.Scrypt` over BoringSSL), stored as
/// one text holding the parameters with the salt and the hash, so the cost can be raised later without losing the
/// hashes made before: `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (salt 16 random bytes, hash 32 bytes, both base64
/// without padding). A password checked against a hash of lower cost than the configured one is hashed again
/// (``needsRehash(_:)``).
struct PasswordHasher: Sendable {
    /// scrypt's parameters: `N = 2^logN`, block size `r`, parallelism `p`.
    struct Parameters: Sendable, Equatable {
        var logN: Int
        var r: Int
        var p: Int

        /// 2^15 × 8 × 128 bytes = 32 MiB and about a tenth of a second per hash: RFC 7914's interactive cost,
        /// raised.
        static let standard = Parameters(logN: 15, r: 8, p: 1)
    }

    var parameters: Parameters

    static let saltBytes = 16
    static let hashBytes = 32
    /// The shortest and longest password accepted (bytes of UTF-8).
    static let passwordLength = 10...1024

    /// The stored text of `password` under a new salt. Runs on NIO's thread pool: scrypt takes tens of milliseconds.
    func hash(_ password: String) async throws -> String {
        var salt = [UInt8](repeating: 0, count: Self.saltBytes)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        let derived = try await Self.derive(password, salt: salt, parameters)
        return "$scrypt$ln=\(parameters.logN),r=\(parameters.r),p=\(parameters.p)$"
            + Self.base64(salt) + "$" + Self.base64(derived)
    }

    /// Whether `password` is the one `stored` was made from (compared in constant time); `false` for a stored text
    /// that does not parse.
    func verify(_ password: String, against stored: String) async throws -> Bool {
        guard let (parameters, salt, expected) = Self.parse(stored) else { return false }
        let derived = try await Self.derive(password, salt: salt, parameters)
        return derived.count == expected.count && zip(derived, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Spends the time of one verification, for an unknown email (so the answer's timing does not tell it).
    func verifyNothing(_ password: String) async throws {
        _ = try await Self.derive(password, salt: [UInt8](repeating: 0, count: Self.saltBytes), parameters)
    }

    /// Whether `stored` was made at a lower cost than ``parameters`` (or does not parse).
    func needsRehash(_ stored: String) -> Bool {
        guard let (stored, _, _) = Self.parse(stored) else { return true }
        return stored.logN < parameters.logN || stored.r < parameters.r || stored.p < parameters.p
    }

    static func parse(_ stored: String) -> (Parameters, [UInt8], [UInt8])? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return nil }
        var values: [Substring: Int] = [:]
        for pair in parts[2].split(separator: ",") {
            let keyValue = pair.split(separator: "=")
            guard keyValue.count == 2, let value = Int(keyValue[1]) else { return nil }
            values[keyValue[0]] = value
        }
        guard let logN = values["ln"], let r = values["r"], let p = values["p"], (1...24).contains(logN),
            (1...32).contains(r), (1...16).contains(p), let salt = unbase64(parts[3]), let hash = unbase64(parts[4]),
            !hash.isEmpty
        else { return nil }
        return (Parameters(logN: logN, r: r, p: p), salt, hash)
    }

    private static func derive(_ password: String, salt: [UInt8], _ parameters: Parameters) async throws -> [UInt8] {
        try await NIOThreadPool.singleton.runIfActive {
            let key = try KDF.Scrypt.deriveKey(
                from: Array(password.utf8), salt: salt, outputByteCount: hashBytes, rounds: 1 << parameters.logN,
                blockSize: parameters.r, parallelism: parameters.p)
            return key.withUnsafeBytes { Array($0) }
        }
    }

    private static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    private static func unbase64(_ text: Substring) -> [UInt8]? {
        let padded = String(text) + String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: padded).map { Array($0) }
    }
}
