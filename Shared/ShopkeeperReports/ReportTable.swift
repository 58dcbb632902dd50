import Foundation
import ShopkeeperCore

/// One value of a report: a name, a count or an amount, or nothing (a dimension the facts do not know).
package enum ReportValue: Sendable, Hashable {
    case text(String)
    case integer(Int64)
    case null

    /// `value` as text, or null.
    package init(_ value: String?) {
        self = value.map(ReportValue.text) ?? .null
    }

    /// `value` as an integer, or null.
    package init(_ value: Int64?) {
        self = value.map(ReportValue.integer) ?? .null
    }

    /// The value in JSON.
    var json: String {
        switch self {
        case .text(let text): JSONString.quoted(text)
        case .integer(let number): String(number)
        case .null: "null"
        }
    }

    /// The value as a CSV field: text through ``CSVField/text(_:)`` (a leading formula character escaped, quoted as
    /// RFC 4180 needs); an integer as it is, a negative one included (the server counted it: a number, not a
    /// formula); empty for null.
    var csv: String {
        switch self {
        case .integer(let number): String(number)
        case .null: ""
        case .text(let text): CSVField.text(text)
        }
    }
}

/// A column of a report: a dimension its rows are keyed by, or a figure.
package struct ReportColumn: Sendable, Hashable {
    package enum Role: Sendable, Hashable {
        /// Keys the rows (`day`, `product_id`...).
        case dimension
        /// A figure whose totals are the sum of its rows (counts, amounts).
        case sum
        /// A figure that does not add up across rows (distinct devices, subscriptions in a state at a day's end).
        case other
        /// Text that explains the row's figures without keying it (the exchange rates a converted figure used).
        case note
    }

    package var name: String
    package var role: Role

    package init(_ name: String, _ role: Role) {
        self.name = name
        self.role = role
    }
}

/// A report's answer: the request it answers, its columns, its rows and their totals.
///
/// JSON: `{"report", "from", "to", "environment", "group_by", "columns", "rows", "totals", "next_from"}`, each row and
/// each total an object keyed by column name in column order; `to` is the last day the answer covers and `next_from`
/// the first day of the next page, or null (``ReportPaging``). CSV: a header line of the column names, then one line per row (no
/// totals), `\r\n` line ends, empty fields for null, text that a spreadsheet would run as a formula escaped
/// (``CSVField``).
package struct ReportTable: Sendable {
    package var report: String
    package var request: ReportRequest
    package var columns: [ReportColumn]
    package var rows: [[ReportValue]]
    /// Column names of ``totals``: the dimensions totals are kept apart by (sales: the currency), then the figures.
    package var totalColumns: [String]
    package var totals: [[ReportValue]]
    /// The first day of the next page, when the answer is one page of a longer range (``ReportPaging``).
    package var nextFrom: ReportDay?

    /// A table whose totals are the sums of its ``ReportColumn/Role/sum`` columns, one total per distinct value of
    /// `totalsBy` (one total when empty).
    package init(
        report: String, request: ReportRequest, columns: [ReportColumn], rows: [[ReportValue]],
        totalsBy: [String] = []
    ) {
        self.report = report
        self.request = request
        self.columns = columns
        self.rows = rows
        let keys = totalsBy.compactMap { name in columns.firstIndex { $0.name == name } }
        let sums = columns.indices.filter { columns[$0].role == .sum }
        totalColumns = keys.map { columns[$0].name } + sums.map { columns[$0].name }
        // A figure no row of a total knows (revenue without a currency) totals null, not 0.
        var order: [[ReportValue]] = []
        var totals: [[ReportValue]: [Int64?]] = [:]
        for row in rows {
            let key = keys.map { row[$0] }
            if totals[key] == nil {
                order.append(key)
                totals[key] = Array(repeating: nil, count: sums.count)
            }
            var sum = totals[key] ?? []
            for (slot, index) in sums.enumerated() {
                if case .integer(let value) = row[index] { sum[slot] = (sum[slot] ?? 0) + value }
            }
            totals[key] = sum
        }
        if keys.isEmpty, order.isEmpty {
            order = [[]]
            totals[[]] = Array(repeating: 0, count: sums.count)
        }
        self.totals = order.map { key in key + (totals[key] ?? []).map(ReportValue.init) }
    }

    /// Adds a figure to every total (one that is not the sum of the rows, such as distinct devices over the range).
    package mutating func addTotal(_ name: String, value: ReportValue) {
        totalColumns.append(name)
        totals = totals.map { $0 + [value] }
    }

    /// The JSON document, written into one string (a report may hold tens of thousands of rows).
    package func json() -> String {
        var text = "{\"report\":\(JSONString.quoted(report))"
        text.reserveCapacity(256 + rows.count * columns.count * 24)
        text += ",\"from\":\"\(request.from)\",\"to\":\"\(request.to)\""
        text += ",\"environment\":" + (request.environment.map { JSONString.quoted($0.rawValue) } ?? "null")
        text += ",\"group_by\":[" + request.groupBy.map(JSONString.quoted).joined(separator: ",") + "]"
        text += ",\"columns\":[" + columns.map { JSONString.quoted($0.name) }.joined(separator: ",") + "]"
        text += ",\"rows\":"
        Self.append(rows, keys: columns.map { JSONString.quoted($0.name) + ":" }, to: &text)
        text += ",\"totals\":"
        Self.append(totals, keys: totalColumns.map { JSONString.quoted($0) + ":" }, to: &text)
        text += ",\"next_from\":" + (nextFrom.map { "\"\($0)\"" } ?? "null")
        text += "}"
        return text
    }

    /// The CSV document.
    package func csv() -> String {
        var text = columns.map { ReportValue.text($0.name).csv }.joined(separator: ",") + "\r\n"
        text.reserveCapacity(text.utf8.count + rows.count * columns.count * 12)
        for row in rows {
            for (index, value) in row.enumerated() {
                if index > 0 { text += "," }
                text += value.csv
            }
            text += "\r\n"
        }
        return text
    }

    /// Appends `[{key: value, ...}, ...]`; `keys` are quoted and end with `:`.
    private static func append(_ rows: [[ReportValue]], keys: [String], to text: inout String) {
        text += "["
        for (number, row) in rows.enumerated() {
            text += number == 0 ? "{" : ",{"
            for (index, value) in row.enumerated() {
                if index > 0 { text += "," }
                text += keys[index]
                text += value.json
            }
            text += "}"
        }
        text += "]"
    }
}
