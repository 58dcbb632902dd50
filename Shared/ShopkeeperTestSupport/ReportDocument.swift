import Foundation

/// A report's JSON answer (`GET /v1/admin/reports/...`), decoded for tests.
package struct ReportDocument: Decodable, Sendable {
    /// One value of a row: text, an integer or null.
    package enum Cell: Decodable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral,
        ExpressibleByIntegerLiteral, ExpressibleByNilLiteral
    {
        case text(String)
        case integer(Int64)
        case null

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let number = try? container.decode(Int64.self) {
                self = .integer(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        package init(stringLiteral value: String) { self = .text(value) }
        package init(integerLiteral value: Int64) { self = .integer(value) }
        package init(nilLiteral: ()) { self = .null }

        /// The value as a CSV field holds it once read (null: empty): text that a spreadsheet would run as a formula
        /// (its first character `=`, `+`, `-`, `@`, a tab or a carriage return) after a `'`, as OWASP advises.
        package var csv: String {
            switch self {
            case .text(let text):
                text.unicodeScalars.first.map { "=+-@\t\r".unicodeScalars.contains($0) } == true ? "'" + text : text
            case .integer(let number): String(number)
            case .null: ""
            }
        }

        package var description: String {
            switch self {
            case .text(let text): "\"\(text)\""
            case .integer(let number): String(number)
            case .null: "null"
            }
        }
    }

    package var report: String
    package var from: String
    package var to: String
    package var environment: String?
    package var groupBy: [String]
    package var columns: [String]
    package var rows: [[String: Cell]]
    package var totals: [[String: Cell]]
    /// The first day of the next page, or nil on the last.
    package var nextFrom: String?

    enum CodingKeys: String, CodingKey {
        case report, from, to, environment, columns, rows, totals
        case groupBy = "group_by"
        case nextFrom = "next_from"
    }

    package init(_ body: some Collection<UInt8>) throws {
        self = try JSONDecoder().decode(ReportDocument.self, from: Data(body))
    }

    /// The rows whose `column` is `value`.
    package func rows(where column: String, is value: Cell) -> [[String: Cell]] {
        rows.filter { $0[column] == value }
    }

    /// The one total of `currency` (sales), or the one total.
    package func total(currency: String? = nil) -> [String: Cell]? {
        guard let currency else { return totals.first }
        return totals.first { $0["currency"] == .text(currency) }
    }

    /// The rows as CSV fields, header first, as the CSV answer should hold them.
    package var csvLines: [[String]] {
        [columns] + rows.map { row in columns.map { row[$0]?.csv ?? "" } }
    }

    /// Text a spreadsheet would run as a formula, one for each of OWASP's first characters (`=`, `+`, `-`, `@`, tab,
    /// carriage return): what a report's CSV must give back escaped.
    package static let formulas = [
        "=HYPERLINK(\"http://x\")", "=1+2", "@SUM(A1)", "+3-1", "-2+3", "\tcmd", "\r=1+2",
    ]

    /// The fields of the CSV `lines`' column `name` (below its header), or nil when the header has no such column.
    package static func column(_ name: String, of lines: [[String]]) -> [String]? {
        guard let index = lines.first?.firstIndex(of: name) else { return nil }
        return lines.dropFirst().map { $0.indices.contains(index) ? $0[index] : "" }
    }

    /// Reads a CSV document (RFC 4180: quoted fields, doubled quotes, CRLF or LF line ends) into its lines' fields.
    package static func parseCSV(_ text: String) -> [[String]] {
        var lines: [[String]] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var iterator = Array(text).makeIterator()
        var pending: Character? = nil
        while let character = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    let next = iterator.next()
                    if next == "\"" {
                        field.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"": quoted = true
            case ",":
                fields.append(field)
                field = ""
            case "\r\n", "\n", "\r":
                fields.append(field)
                lines.append(fields)
                fields = []
                field = ""
            default: field.append(character)
            }
        }
        if !field.isEmpty || !fields.isEmpty {
            fields.append(field)
            lines.append(fields)
        }
        return lines
    }
}
