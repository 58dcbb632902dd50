import ArgumentParser
import Foundation

/// `shopkeeper report <name>`: an app's figures from `GET /v1/admin/reports/<name>` (secret key).
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: """
            Print a report of the app's figures: sales, usage, consumables, subscriptions, content, or a chart \
            (mrr, activity, trial-conversion, retention, churn, refunds, ltv).
            """,
        discussion: """
            Days are UTC days, both ends included (at most 400). Without --csv or --json the rows and their totals \
            are printed as a table. Amounts are milliunits of their currency (1990 = 1.99).
              shopkeeper report sales --from 2025-01-01 --to 2025-01-31 --group-by day,product
              shopkeeper report subscriptions --from 2025-01-01 --to 2025-03-31 --csv > subscriptions.csv
              shopkeeper report mrr --from 2025-01-01 --to 2025-03-31 --currency USD
              shopkeeper report retention --from 2025-01-01 --to 2025-12-31 --group-by month,product
            """
    )

    /// The reports, by the last segment of their path.
    enum Name: String, ExpressibleByArgument, CaseIterable {
        case sales, usage, consumables, mrr, subscriptions, content, activity, retention, churn, refunds, ltv
        case trialConversion = "trial-conversion"
    }

    @Argument(help: "The report: \(Name.allCases.map(\.rawValue).joined(separator: ", ")).")
    var name: Name

    @Option(help: "First UTC day (YYYY-MM-DD; default: 29 days before --to).")
    var from: String?

    @Option(help: "Last UTC day, included (YYYY-MM-DD; default: today).")
    var to: String?

    @Option(help: ArgumentHelp(Self.groupByHelp))
    var groupBy: String?

    static let groupByHelp = """
        Comma-separated dimensions (sales: day,product,store,storefront; usage: day,app_version,product; \
        consumables: day,product; mrr: day[,product,store,storefront]; subscriptions: day[,product]; \
        content: day,product,version; trial-conversion, retention, churn, refunds, ltv: month or day \
        [,product,store,storefront]).
        """

    @Option(help: "Store environment of sales, usage and subscriptions: production (default), sandbox, ...")
    var environment: String?

    @Option(
        help:
            "mrr, churn, refunds, ltv: the currency to convert every figure to, at the loaded exchange rates (ISO 4217)."
    )
    var currency: String?

    @Flag(help: "Print the report as CSV, as the API sends it.")
    var csv = false

    @Flag(help: "Print the report as JSON, as the API sends it.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if csv && json { throw ValidationError("Give --csv or --json, not both.") }
    }

    func run() async throws {
        let calendar = Self.utcCalendar
        let today = Self.day(Date(), calendar: calendar)
        let to = to ?? today
        let from =
            from
            ?? Self.day(
                calendar.date(byAdding: .day, value: -29, to: Self.date(to, calendar: calendar) ?? Date()) ?? Date(),
                calendar: calendar)
        var query = [URLQueryItem(name: "from", value: from), URLQueryItem(name: "to", value: to)]
        if let groupBy { query.append(URLQueryItem(name: "group_by", value: groupBy)) }
        if let environment { query.append(URLQueryItem(name: "environment", value: environment)) }
        if let currency { query.append(URLQueryItem(name: "currency", value: currency)) }
        let body = try await connection.secretClient().get(
            "/v1/admin/reports/\(name.rawValue)", query: query, accept: csv ? "text/csv" : "application/json")
        if csv || json {
            FileHandle.standardOutput.write(body)
            if json { print() }
            return
        }
        print(try ReportPrinter.table(from: body), terminator: "")
    }

    static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }()

    static func day(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    static func date(_ day: String, calendar: Calendar) -> Date? {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
    }
}

/// Renders a report's JSON answer as aligned text: its rows, then its totals.
enum ReportPrinter {
    static func table(from data: Data) throws -> String {
        guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let columns = document["columns"] as? [String], let rows = document["rows"] as? [[String: Any]]
        else { throw ValidationError("The answer is not a report.") }
        var text = render(columns: columns, rows: rows)
        if let totalColumns = (document["totals"] as? [[String: Any]])?.first.map({ Array($0.keys) }),
            let totals = document["totals"] as? [[String: Any]]
        {
            let ordered = columns.filter(totalColumns.contains) + totalColumns.filter { !columns.contains($0) }
            text += "\ntotals\n" + render(columns: ordered, rows: totals)
        }
        if let next = document["next_from"] as? String, let to = document["to"] as? String {
            text += "\nthrough \(to) only (a page of the range): the rest from --from \(next)\n"
        }
        return text
    }

    private static func render(columns: [String], rows: [[String: Any]]) -> String {
        let cells = rows.map { row in columns.map { describe(row[$0]) } }
        let widths = columns.enumerated().map { index, name in
            cells.map { $0[index].count }.reduce(name.count, max)
        }
        func line(_ values: [String]) -> String {
            zip(values, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }
        return line(columns) + cells.map(line).joined()
    }

    private static func describe(_ value: Any?) -> String {
        switch value {
        case let text as String: text
        case let number as NSNumber: number.stringValue
        default: "-"
        }
    }
}
