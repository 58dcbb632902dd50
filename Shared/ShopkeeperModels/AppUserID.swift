import Foundation

/// The rules of an app user id, in one place: what the server accepts, its one canonical form, and its one form in
/// a URL path.
///
/// An id is canonical in Unicode NFC (a composed `é` and an `e` followed by a combining accent are one customer, as
/// they look the same to a person); it is 1 to ``maximumLength`` code points without control characters (no NUL, no
/// line breaks). In a path segment (`/v1/customers/{app_user_id}`) it is written as its UTF-8 bytes with every byte
/// outside ``isPlain(_:)`` percent-encoded in uppercase hex: one spelling per id. The gateway turns whatever
/// spelling a client sent into that one (``decode(segment:)``, then ``segment(_:)``) before it compares a customer
/// token or forwards the request; services read only that spelling (``decode(canonicalSegment:)``), so the id the
/// gateway checked is the id a service acts on.
package enum AppUserID {
    /// The most code points (in NFC) an id may have.
    package static let maximumLength = 256

    /// What is wrong with an id or its spelling.
    package enum Problem: Error, Equatable, Sendable {
        /// Empty, too long, or holding a control character.
        case invalid
        /// A `%` not followed by two hex digits, or bytes that are not UTF-8.
        case malformedEncoding
        /// A spelling other than the canonical one (services accept only the gateway's spelling).
        case notCanonical

        /// The detail of the problem a client is shown.
        package var detail: String {
            switch self {
            case .invalid: AppUserID.rule
            case .malformedEncoding: "must be percent-encoded UTF-8 (a '%' followed by two hex digits per byte)"
            case .notCanonical:
                "must be spelled as the gateway forwards it: UTF-8 in NFC, every byte other than letters, digits "
                    + "and '-._~@:' percent-encoded in uppercase hex"
            }
        }
    }

    /// The rule, as error details state it.
    package static let rule =
        "must be 1 to \(maximumLength) characters (code points) without control characters (one line, no NUL)"

    /// `id` in its canonical form (NFC), or ``Problem/invalid`` when it breaks the rule.
    package static func canonical(_ id: String) throws(Problem) -> String {
        let normalized = isNFC(id) ? id : id.precomposedStringWithCanonicalMapping
        // Counted in code points of the NFC form, as the API document's `maxLength` counts them.
        guard !normalized.isEmpty, normalized.unicodeScalars.count <= maximumLength,
            !normalized.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalid }
        return normalized
    }

    /// The prefix of the anonymous ids apps make for a person who has not logged in (`anon_` and a UUID).
    package static let anonymousPrefix = "anon_"

    /// Whether `id` is an anonymous install id: `anon_` followed by a UUID (either case), as ShopkeeperKit makes
    /// one at first start. The public key may link ids only from such an id (a log-in); any other id is taken to
    /// name an identified customer.
    package static func isAnonymous(_ id: String) -> Bool {
        guard id.utf8.count == anonymousPrefix.utf8.count + 36, id.hasPrefix(anonymousPrefix) else { return false }
        return UUID(uuidString: String(id.dropFirst(anonymousPrefix.utf8.count))) != nil
    }

    /// The canonical path segment of a canonical id.
    /// (The ids `.` and `..` are encoded whole, as `%2E`: a path's dot segments are not ids.)
    package static func segment(_ id: String) -> String {
        let isDotSegment = id == "." || id == ".."
        if !isDotSegment && id.utf8.allSatisfy(isPlain) { return id }
        var encoded: [UInt8] = []
        encoded.reserveCapacity(id.utf8.count * 3)
        for byte in id.utf8 {
            if isPlain(byte) && !isDotSegment {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hexDigits[Int(byte >> 4)])
                encoded.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// The canonical id a path segment names, however the client spelled it (percent-decoded UTF-8, then NFC).
    package static func decode(segment: Substring) throws(Problem) -> String {
        if segment.utf8.allSatisfy(isPlain) {
            // A dot segment is a path's, never an id (the id `.` is spelled `%2E`).
            guard segment != ".", segment != ".." else { throw .invalid }
            return try canonical(String(segment))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.utf8.count)
        var iterator = segment.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .malformedEncoding
            }
            bytes.append(high << 4 | low)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .malformedEncoding }
        return try canonical(text)
    }

    /// The id of a segment spelled exactly as ``segment(_:)`` writes it; any other spelling is refused. What a
    /// service reads from its paths: the gateway forwards nothing else.
    package static func decode(canonicalSegment segment: Substring) throws(Problem) -> String {
        let id = try decode(segment: segment)
        guard self.segment(id).utf8.elementsEqual(segment.utf8) else { throw .notCanonical }
        return id
    }

    /// Letters, digits and `-._~@:`: the bytes a canonical segment keeps as they are (RFC 3986 unreserved
    /// characters, plus `@` and `:`, which a path segment allows and ids such as e-mail addresses hold).
    package static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"), UInt8(ascii: "@"), UInt8(ascii: ":"):
            true
        default:
            false
        }
    }

    /// Whether `id` is certainly in NFC already: ASCII is (the usual case, checked without Foundation).
    private static func isNFC(_ id: String) -> Bool {
        id.utf8.allSatisfy { $0 < 0x80 }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
