/// Random identifiers and secrets drawn from the system's secure generator.
package enum RandomToken {
    private static let alphabet: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    /// `length` base-62 characters (about 5.95 bits each), e.g. 32 characters carry 190 bits.
    ///
    /// Draws one 64-bit word from the system generator per 10 characters (each word holds 10 base-62 digits
    /// with a negligible bias of 2^-4), since every draw is a system call.
    package static func base62(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var result = ""
        result.reserveCapacity(length)
        var word: UInt64 = 0
        for index in 0..<length {
            if index % 10 == 0 { word = generator.next() }
            result.append(alphabet[Int(word % 62)])
            word /= 62
        }
        return result
    }

    /// A prefixed identifier such as `app_3kTq…`.
    package static func identifier(prefix: String, length: Int = 20) -> String {
        "\(prefix)_\(base62(length: length))"
    }
}
