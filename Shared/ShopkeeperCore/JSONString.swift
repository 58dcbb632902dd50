/// JSON text written by hand (logs, documents PostgreSQL rendered), where a `JSONEncoder` round trip would cost
/// too much or change the text.
package enum JSONString {
    /// `text` as a JSON string literal, with the escapes RFC 8259 requires, written as PostgreSQL's `to_json` writes
    /// them (`\b` and `\f` short, other control characters as lowercase `\u00xx`), so that a document assembled here
    /// and one assembled in SQL are the same bytes (and the same entity tag).
    package static func quoted(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
