import Foundation

/// Text as one field of a CSV document the server writes: safe to open in a spreadsheet, and quoted as RFC 4180
/// needs. Every CSV writer goes through ``text(_:)`` for every text it writes (names in the header line included).
///
/// Formula injection (OWASP, "CSV Injection"): a spreadsheet runs a cell whose first character is `=`, `+`, `-`,
/// `@`, a tab or a carriage return as a formula, and text in reports comes from callers (an `app_version` any holder
/// of the public key sets, store product ids). Such a field is prefixed with `'`, which spreadsheets show as text and
/// do not display. Numbers the server itself counted are not text and are written as they are (``ReportValue``'s
/// integers): a negative figure stays a number a spreadsheet can add up.
package enum CSVField {
    /// The characters that make a spreadsheet read a cell as a formula when it starts with one.
    static let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    /// `text` as a CSV field: `'` before a leading formula character, then quoted when it holds a comma, a quote or a
    /// line break (quotes doubled).
    package static func text(_ text: String) -> String {
        // `unicodeScalars`: "\r\n" is one Character, whose first scalar is still the carriage return.
        let escaped =
            text.unicodeScalars.first.map { formulaStarts.contains(Character($0)) } == true ? "'" + text : text
        guard escaped.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            return escaped
        }
        return "\"" + escaped.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
