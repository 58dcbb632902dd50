import Foundation
import ShopkeeperCore

/// JSON members passed on as the text they arrived as, not decoded and encoded again on the way.
///
/// A customer's info is rendered as JSON text by PostgreSQL in the entitlements service, and travels through the
/// verifier to the app in the answer to a purchase or a restore. Decoding it into ``ShopkeeperModels/CustomerInfo``
/// and encoding it again at each hop cost more CPU than the rest of those answers (it grows with every purchase of
/// the customer), and changed nothing: the text is already what the API document says.
package enum EmbeddedJSON {
    /// `value` encoded as ``JSONBody/encode(_:)`` does (it must encode as a JSON object, without the members added
    /// here), with `members` added: each a member name and a JSON text written as it is, or left out when `nil`.
    package static func encode(_ value: some Encodable, adding members: KeyValuePairs<String, String?>) throws -> Data {
        let encoded = try JSONBody.encode(value)
        guard encoded.first == UInt8(ascii: "{"), encoded.last == UInt8(ascii: "}") else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "members can be added to a JSON object only"))
        }
        var added = Data()
        for case let (name, text?) in members {
            added.append(contentsOf: JSONString.quoted(name).utf8)
            added.append(UInt8(ascii: ":"))
            added.append(contentsOf: text.utf8)
            added.append(UInt8(ascii: ","))
        }
        guard !added.isEmpty else { return encoded }
        var result = Data(capacity: encoded.count + added.count)
        result.append(UInt8(ascii: "{"))
        if encoded.count == 2 {
            // `{}`: no member follows the added ones.
            added.removeLast()
        }
        result.append(added)
        result.append(encoded.dropFirst())
        return result
    }

    /// The JSON text of the member `name` of the JSON object `data` (a top-level member: nested objects are not
    /// searched), or `nil` when the object has no such member or it is `null`.
    ///
    /// Throws ``MalformedJSON`` when `data` is not a JSON object. Only the structure is read (strings, nesting);
    /// the member's text is returned as it is, for a caller that passes it on.
    package static func member(_ name: String, in data: Data) throws(MalformedJSON) -> String? {
        try split(name, in: data).member
    }

    /// ``member(_:in:)``, and the object without that member: so that a decoder given the rest does not read the
    /// member's text (JSONDecoder reads the whole document it is given, whichever members its type decodes). `rest`
    /// is `data` itself when there is no such member.
    package static func split(_ name: String, in data: Data) throws(MalformedJSON) -> (member: String?, rest: Data) {
        let bytes = [UInt8](data)
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        try scanner.expect(UInt8(ascii: "{"))
        scanner.skipWhitespace()
        if scanner.peek() == UInt8(ascii: "}") { return (nil, data) }
        let wanted = Array(name.utf8)
        // Where the comma before the current member is, if it has one.
        var commaBefore: Int?
        while true {
            scanner.skipWhitespace()
            let memberStart = scanner.index
            let key = try scanner.string()
            scanner.skipWhitespace()
            try scanner.expect(UInt8(ascii: ":"))
            scanner.skipWhitespace()
            let start = scanner.index
            try scanner.skipValue()
            let end = scanner.index
            scanner.skipWhitespace()
            let commaAfter = scanner.peek() == UInt8(ascii: ",") ? scanner.index : nil
            // Member names are compared as written: the names looked for need no escapes.
            if bytes[key].elementsEqual(wanted) {
                let text = String(decoding: bytes[start..<end], as: UTF8.self)
                // The member with the comma after it, or (the last member) the one before it.
                let cut = commaAfter.map { memberStart..<($0 + 1) } ?? (commaBefore ?? memberStart)..<end
                var rest = bytes
                rest.removeSubrange(cut)
                return (text == "null" ? nil : text, Data(rest))
            }
            guard let commaAfter else {
                try scanner.expect(UInt8(ascii: "}"))
                return (nil, data)
            }
            commaBefore = commaAfter
            scanner.index = commaAfter + 1
        }
    }

    /// The bytes are not the JSON object they should be.
    package struct MalformedJSON: Error, Equatable {
        /// The byte offset where reading stopped.
        package var offset: Int
    }

    /// Reads the structure of JSON text: where strings, objects and arrays end.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws(MalformedJSON) {
            guard peek() == byte else { throw MalformedJSON(offset: index) }
            index += 1
        }

        /// Skips a string; returns the range of its content (escapes as written).
        mutating func string() throws(MalformedJSON) -> Range<Int> {
            try expect(UInt8(ascii: "\""))
            let start = index
            while let byte = peek() {
                switch byte {
                case UInt8(ascii: "\\"):
                    index += 2
                case UInt8(ascii: "\""):
                    index += 1
                    return start..<(index - 1)
                default:
                    index += 1
                }
            }
            throw MalformedJSON(offset: index)
        }

        /// Skips one value of any kind, nested objects and arrays whole.
        mutating func skipValue() throws(MalformedJSON) {
            var depth = 0
            repeat {
                guard let byte = peek() else { throw MalformedJSON(offset: index) }
                switch byte {
                case UInt8(ascii: "\""):
                    _ = try string()
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    index += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard depth > 0 else { throw MalformedJSON(offset: index) }
                    depth -= 1
                    index += 1
                case UInt8(ascii: ","), UInt8(ascii: ":"), 0x20, 0x0A, 0x0D, 0x09:
                    guard depth > 0 else { throw MalformedJSON(offset: index) }
                    index += 1
                default:
                    // A number, `true`, `false` or `null`: up to the next delimiter.
                    let start = index
                    while let next = peek(), !Self.delimiters.contains(next) { index += 1 }
                    guard index > start else { throw MalformedJSON(offset: index) }
                }
            } while depth > 0
        }

        static let delimiters: Set<UInt8> = [
            UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"), 0x20, 0x0A, 0x0D, 0x09,
            UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "["),
        ]
    }
}
