import Foundation

/// A payload Apple signs as a JWS with an `x5c` chain: it carries the time it was signed, at which
/// the chain is validated.
package protocol AppleSignedPayload: Decodable, Sendable {
    /// UNIX milliseconds at which the App Store signed the data.
    var signedDate: Int64? { get }
    /// One of ``AppleEnvironment``'s raw values.
    var environment: String? { get }
}

extension Date {
    /// The date of a UNIX-milliseconds timestamp as Apple writes them.
    package init(appleMilliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(appleMilliseconds) / 1000)
    }

    /// This date as UNIX milliseconds, as Apple writes them.
    package var appleMilliseconds: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded())
    }
}
