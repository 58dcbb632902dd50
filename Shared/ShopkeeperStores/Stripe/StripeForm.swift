import Foundation

/// A request body as Stripe's API takes it (`application/x-www-form-urlencoded`), nested values in Stripe's bracket
/// notation: `metadata[app_user_id]=...`, `line_items[0][price]=...`. Encoded exactly as Stripe's own libraries
/// encode it (the Python library: `urlencode` of its `_api_encode` pairs, brackets then left literal): unreserved
/// bytes as they are, a space as `+`, every other byte `%XX`; keys keep the order they were given in.
package struct StripeForm: Sendable, Equatable {
    /// One value: text, a nested object (ordered), or a list (indexed `[0]`, `[1]`, ...).
    package indirect enum Value: Sendable, Equatable {
        case text(String)
        case object([(String, Value)])
        case list([Value])

        package static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.text(let a), .text(let b)): a == b
            case (.list(let a), .list(let b)): a == b
            case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
            default: false
            }
        }
    }

    /// The top-level fields, in order.
    package var fields: [(String, Value)]

    package init(_ fields: [(String, Value)] = []) {
        self.fields = fields
    }

    package static func == (lhs: StripeForm, rhs: StripeForm) -> Bool {
        lhs.encoded == rhs.encoded
    }

    /// Adds a text field; `nil` adds nothing (Stripe's libraries leave `None` out).
    package mutating func add(_ key: String, _ text: String?) {
        if let text { fields.append((key, .text(text))) }
    }

    /// Adds a nested object of text values, keys sorted (metadata); an empty one adds nothing.
    package mutating func add(_ key: String, _ object: [String: String]) {
        guard !object.isEmpty else { return }
        fields.append((key, .object(object.sorted { $0.key < $1.key }.map { ($0.key, .text($0.value)) })))
    }

    /// Adds any value.
    package mutating func add(_ key: String, _ value: Value) {
        fields.append((key, value))
    }

    /// The flattened `(key, value)` pairs: `a[b][0]`-style keys, in order.
    package var pairs: [(String, String)] {
        var result: [(String, String)] = []
        func flatten(_ key: String, _ value: Value) {
            switch value {
            case .text(let text): result.append((key, text))
            case .object(let members): for (name, member) in members { flatten("\(key)[\(name)]", member) }
            case .list(let items): for (index, item) in items.enumerated() { flatten("\(key)[\(index)]", item) }
            }
        }
        for (key, value) in fields { flatten(key, value) }
        return result
    }

    /// The body to send.
    package var encoded: String {
        pairs.map { Self.escape($0.0) + "=" + Self.escape($0.1) }.joined(separator: "&")
    }

    /// The query string to send: as ``encoded``, but `[` and `]` escaped (`%5B`, `%5D`), as a URL's query must
    /// have them; Stripe reads both forms alike.
    package var queryEncoded: String {
        encoded.replacingOccurrences(of: "[", with: "%5B").replacingOccurrences(of: "]", with: "%5D")
    }

    /// Form-escapes `text` (Python's `quote_plus`): `A-Z a-z 0-9 _ . - ~` kept, space `+`, other bytes `%XX`;
    /// `[` and `]` kept as they are, as Stripe's libraries send them (keys and values alike).
    static func escape(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"),
                UInt8(ascii: "~"), UInt8(ascii: "["), UInt8(ascii: "]"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                escaped += "+"
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                escaped += "%"
                escaped.unicodeScalars.append(hex[Int(byte >> 4)])
                escaped.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return escaped
    }
}
