import Crypto
import Foundation
import ShopkeeperCore

/// A one-time redemption code: 20 characters of an alphabet without look-alikes (no `0`, `O`, `1`, `I`, `L`),
/// about 99 bits of entropy, shown in groups of five (`ABCDE-FGHJK-MNPQR-STUVW`).
///
/// Only ``hash`` is stored. A code is read as typed: case, spaces and hyphens do not matter.
struct RedemptionCode: Sendable, Equatable {
    /// The 31 characters a code is made of.
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    /// Characters in a code.
    static let length = 20

    /// The code without separators, upper case.
    let normalized: String

    /// A new random code (from the system's cryptographic generator).
    static func random() -> RedemptionCode {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return RedemptionCode(normalized: String(characters))
    }

    /// Reads a code as a person may type it; `nil` when it cannot be one.
    init?(typed text: String) {
        let kept = text.uppercased().filter { $0 != "-" && $0 != " " }
        guard kept.count == Self.length, kept.allSatisfy(Self.alphabet.contains) else { return nil }
        self.normalized = kept
    }

    private init(normalized: String) {
        self.normalized = normalized
    }

    /// The code as shown: groups of five joined by hyphens.
    var display: String {
        stride(from: 0, to: normalized.count, by: 5).map { start in
            let from = normalized.index(normalized.startIndex, offsetBy: start)
            return String(normalized[from..<normalized.index(from, offsetBy: 5)])
        }.joined(separator: "-")
    }

    /// What is stored: the hex SHA-256 of the normalized code.
    var hash: String {
        SHA256.hash(data: Data(normalized.utf8)).hexString
    }
}
