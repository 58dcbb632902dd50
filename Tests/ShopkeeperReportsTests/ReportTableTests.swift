import Hummingbird
import HummingbirdCore
import Testing

@testable import ShopkeeperReports

/// Rendering a report: JSON and CSV hold the same rows; totals add up per key and know what they do not know.
@Suite struct ReportTableTests {
    static let request = ReportRequest(
        from: ReportDay(ordinal: 20_513), to: ReportDay(ordinal: 20_514), groupBy: ["day"], environment: .production,
        format: .json)

    static let table = ReportTable(
        report: "sales", request: request,
        columns: [
            ReportColumn("day", .dimension), ReportColumn("currency", .dimension), ReportColumn("purchases", .sum),
            ReportColumn("revenue_milliunits", .sum),
        ],
        rows: [
            [.text("2026-03-01"), .text("EUR"), .integer(2), .integer(3580)],
            [.text("2026-03-01"), .text("USD"), .integer(1), .integer(1990)],
            [.text("2026-03-02"), .text("USD"), .integer(3), .integer(5970)],
            [.text("2026-03-02"), .null, .integer(1), .null],
        ],
        totalsBy: ["currency"])

    @Test func totalsAddUpPerCurrencyAndAnUnknownAmountStaysUnknown() {
        #expect(Self.table.totalColumns == ["currency", "purchases", "revenue_milliunits"])
        #expect(
            Self.table.totals == [
                [.text("EUR"), .integer(2), .integer(3580)], [.text("USD"), .integer(4), .integer(7960)],
                [.null, .integer(1), .null],
            ])
        let empty = ReportTable(
            report: "usage", request: Self.request, columns: [ReportColumn("purchases", .sum)], rows: [])
        #expect(empty.totals == [[.integer(0)]])
    }

    @Test func jsonKeepsTheColumnOrder() {
        #expect(
            Self.table.json()
                == #"{"report":"sales","from":"2026-03-01","to":"2026-03-02","environment":"production","group_by":["day"],"#
                + #""columns":["day","currency","purchases","revenue_milliunits"],"rows":["#
                + #"{"day":"2026-03-01","currency":"EUR","purchases":2,"revenue_milliunits":3580},"#
                + #"{"day":"2026-03-01","currency":"USD","purchases":1,"revenue_milliunits":1990},"#
                + #"{"day":"2026-03-02","currency":"USD","purchases":3,"revenue_milliunits":5970},"#
                + #"{"day":"2026-03-02","currency":null,"purchases":1,"revenue_milliunits":null}],"totals":["#
                + #"{"currency":"EUR","purchases":2,"revenue_milliunits":3580},"#
                + #"{"currency":"USD","purchases":4,"revenue_milliunits":7960},"#
                + #"{"currency":null,"purchases":1,"revenue_milliunits":null}],"next_from":null}"#)
        var page = Self.table
        page.nextFrom = ReportDay("2026-03-03")
        #expect(page.json().hasSuffix(#""next_from":"2026-03-03"}"#))
    }

    @Test func csvQuotesWhatNeedsIt() {
        #expect(
            Self.table.csv()
                == "day,currency,purchases,revenue_milliunits\r\n2026-03-01,EUR,2,3580\r\n2026-03-01,USD,1,1990\r\n"
                + "2026-03-02,USD,3,5970\r\n2026-03-02,,1,\r\n")
        #expect(ReportValue.text("a,b").csv == "\"a,b\"")
        #expect(ReportValue.text("say \"hi\"").csv == "\"say \"\"hi\"\"\"")
        #expect(ReportValue.text("two\nlines").csv == "\"two\nlines\"")
        #expect(ReportValue.text("two\r\nlines").csv == "\"two\r\nlines\"")
        #expect(ReportValue.text("plain").csv == "plain")
    }

    /// OWASP's formula starts, each as the first character of a text cell: prefixed with `'`, then quoted as needed.
    @Test(
        "Text a spreadsheet would run as a formula is escaped; numbers the server counted are not",
        arguments: [
            ("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""), ("=1+2", "'=1+2"),
            ("@SUM(A1)", "'@SUM(A1)"), ("+3-1", "'+3-1"), ("-2+3", "'-2+3"), ("\tx", "'\tx"),
            ("\rx", "\"'\rx\""), ("\r\nx", "\"'\r\nx\""), ("=a,b", "\"'=a,b\""),
            // Ordinary text, and formula characters that do not come first, as they were.
            ("1.2.3", "1.2.3"), ("a=b", "a=b"), ("2026-03-01", "2026-03-01"), ("", ""),
        ])
    func csvEscapesFormulas(text: String, field: String) {
        #expect(ReportValue.text(text).csv == field)
    }

    @Test func csvEscapesEveryTextCellAndNoNumber() {
        let table = ReportTable(
            report: "usage", request: Self.request,
            columns: [ReportColumn("app_version", .dimension), ReportColumn("-units", .sum)],
            rows: [[.text("=1+2"), .integer(-350)], [.text("-2"), .integer(-2)], [.text("1.0"), .integer(3)]])
        #expect(table.csv() == "app_version,'-units\r\n'=1+2,-350\r\n'-2,-2\r\n1.0,3\r\n")
        // JSON is not a spreadsheet's: the values as they are.
        #expect(table.json().contains(#"{"app_version":"=1+2","-units":-350}"#))
    }

    @Test func theResponseNamesItsFormat() {
        var csv = Self.table
        csv.request.format = .csv
        let response = csv.response()
        #expect(response.headers[.contentType] == "text/csv; charset=utf-8; header=present")
        #expect(response.headers[.contentDisposition] == "attachment; filename=\"sales-2026-03-01-2026-03-02.csv\"")
        #expect(response.headers[.cacheControl] == "no-store")
        #expect(Self.table.response().headers[.contentType] == "application/json; charset=utf-8")
    }
}
