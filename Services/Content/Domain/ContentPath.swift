/// A checked relative path of a file inside a pack: `/`-separated segments of letters, digits, `.`, `_`, `-`, `+`
/// and `@`, none empty and none starting with `.` (so no `.`, `..` or hidden files), at most 16 deep, 1024 bytes in
/// all. It can never leave the version's directory, and needs no escaping in a URL.
struct ContentPath: Sendable, Hashable, CustomStringConvertible {
    /// The path as given, e.g. `levels/1/map.bin`.
    let value: String
    var description: String { value }
    var segments: [Substring] { value.split(separator: "/") }
    /// The last segment, e.g. `map.bin`.
    var fileName: Substring { segments.last ?? Substring(value) }

    static let maximumLength = 1024
    static let maximumDepth = 16
    static let maximumSegmentLength = 255

    /// Checks `text`; throws ``ContentError/invalidPath(path:reason:)`` saying what is wrong.
    init(_ text: String) throws(ContentError) {
        func refuse(_ reason: String) -> ContentError { .invalidPath(path: String(text.prefix(200)), reason: reason) }
        guard !text.isEmpty else { throw refuse("it is empty") }
        guard text.utf8.count <= Self.maximumLength else {
            throw refuse("it is longer than \(Self.maximumLength) bytes")
        }
        guard !text.hasPrefix("/") else { throw refuse("absolute paths are not allowed") }
        guard !text.contains("\\") else { throw refuse("use '/' between directories, not '\\'") }
        let segments = text.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count <= Self.maximumDepth else { throw refuse("it is more than \(Self.maximumDepth) deep") }
        for segment in segments {
            guard !segment.isEmpty else { throw refuse("it has an empty segment ('//' or a trailing '/')") }
            guard segment != "..", segment != "." else { throw refuse("'.' and '..' are not allowed") }
            guard !segment.hasPrefix(".") else { throw refuse("names may not start with '.'") }
            guard segment.utf8.count <= Self.maximumSegmentLength else {
                throw refuse("a name is longer than \(Self.maximumSegmentLength) bytes")
            }
            guard segment.utf8.allSatisfy(Self.allowed) else {
                throw refuse("names may hold only letters, digits, '.', '_', '-', '+' and '@'")
            }
        }
        self.value = text
    }

    private static func allowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "@"): true
        default: false
        }
    }
}

/// Checked identifiers of packs: product ids and versions as they appear in paths on disk and in URLs.
enum ContentName {
    /// Letters, digits, `.`, `_`, `-`; 1 to `maximum` characters; first a letter or digit.
    static func isValid(_ text: String, maximum: Int = 100) -> Bool {
        guard let first = text.utf8.first, text.utf8.count <= maximum else { return false }
        let alphanumeric: (UInt8) -> Bool = { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        return alphanumeric(first)
            && text.utf8.allSatisfy {
                alphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
    }
}

/// One published version of one product's pack of one app: the unit stored, downloaded and removed as a whole.
struct PackVersion: Sendable, Hashable {
    var appID: String
    var productID: String
    var version: String
}
