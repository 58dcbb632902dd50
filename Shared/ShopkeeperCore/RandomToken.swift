/// Random identifiers and secrets drawn from the system's secure generator.
package enum RandomToken {
    private static let alphabet: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    /// `length` base-62 characters (about 5.95 bits each), e.g. 32 characters carry 190 bits.
    package static func base62(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    /// A prefixed identifier such as `app_3kTq…`.
    package static func identifier(prefix: String, length: Int = 20) -> String {
        "\(prefix)_\(base62(length: length))"
    }
}
