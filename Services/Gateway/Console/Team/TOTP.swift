import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 30-second steps from the Unix epoch,
/// 6 digits, as every authenticator app makes them. A code is accepted for the step it was made in and the steps
/// either side (clocks drift); the step a code was accepted for is remembered so each code works once.
enum TOTP {
    static let stepSeconds: Int64 = 30
    static let digits = 6
    /// The secret's length: 20 random bytes (160 bits, RFC 4226's recommendation).
    static let secretBytes = 20

    /// A new random secret.
    static func generateSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<secretBytes).map { _ in generator.next() }
    }

    /// The time step of `date`.
    static func step(at date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down)) / stepSeconds
    }

    /// The code of `step` under `secret`, `digits` long (RFC 4226, section 5.3).
    static func code(secret: [UInt8], step: Int64, digits: Int = TOTP.digits) -> String {
        let counter = withUnsafeBytes(of: UInt64(bitPattern: step).bigEndian) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: counter, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The step within ±1 of `date`'s whose code `code` is, later than `after` (the last step used); `nil` when
    /// none is.
    static func acceptedStep(code: String, secret: [UInt8], at date: Date, after lastUsed: Int64?) -> Int64? {
        let given = code.filter { !$0.isWhitespace }
        guard given.count == digits, given.allSatisfy(\.isASCII), given.allSatisfy(\.isNumber) else { return nil }
        let now = step(at: date)
        for candidate in (now - 1)...(now + 1) where lastUsed.map({ candidate > $0 }) ?? true {
            let expected = Self.code(secret: secret, step: candidate)
            // Compared as digests: the time taken does not say how many digits were right.
            if SHA256.hash(data: Array(expected.utf8)) == SHA256.hash(data: Array(given.utf8)) { return candidate }
        }
        return nil
    }

    /// RFC 4648 base32 without padding, as authenticator apps take a secret.
    static func base32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var output = ""
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return output
    }

    /// The `otpauth://totp/` URI an authenticator app scans (Google Authenticator's key URI format).
    static func uri(secret: [UInt8], account: String, issuer: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ":/?#&=+")
        let label = "\(issuer):\(account)".addingPercentEncoding(withAllowedCharacters: allowed) ?? account
        let issuerParameter = issuer.addingPercentEncoding(withAllowedCharacters: allowed) ?? issuer
        return "otpauth://totp/\(label)?secret=\(base32(secret))&issuer=\(issuerParameter)"
            + "&algorithm=SHA1&digits=\(digits)&period=\(stepSeconds)"
    }
}
