import Hummingbird
import HummingbirdCore
import ShopkeeperHTTP
import ShopkeeperModels
import Testing

@testable import ShopkeeperReports

/// Reading a report request: UTC days, the range limit, groupings, environments and the format.
@Suite struct ReportRequestTests {
    static let spec = ReportSpec(
        name: "sales", dimensions: ["day", "product", "store", "storefront"], defaultGroupBy: ["day"],
        hasEnvironment: true)

    static func read(_ query: String, accept: String? = nil, spec: ReportSpec = spec) throws(RequestError)
        -> ReportRequest
    {
        try ReportRequest.read(URI("/r?\(query)").queryParameters, accept: accept, spec: spec)
    }

    @Test(arguments: [
        ("1970-01-01", 0), ("2024-02-29", 19_782), ("2026-03-01", 20_513), ("9999-12-31", 2_932_896),
    ])
    func daysReadAndPrintAsUTCDays(text: String, ordinal: Int) throws {
        let day = try #require(ReportDay(text))
        #expect(day.ordinal == ordinal)
        #expect(day.description == text)
        #expect(ReportDay(containing: day.start) == day)
        #expect(ReportDay(containing: day.start.addingTimeInterval(86_399.9)) == day)
        #expect(ReportDay(containing: day.start.addingTimeInterval(-0.1)).next == day)
    }

    @Test(arguments: [
        "2025-02-29", "2026-13-01", "2026-04-31", "1969-12-31", "26-03-01", "2026-3-1", "2026-03-01T00:00:00Z",
        "２０２６-03-01", "", "2026/03/01", "+2026-03-01",
    ])
    func notADay(text: String) {
        #expect(ReportDay(text) == nil)
    }

    @Test func defaultsAndCanonicalGrouping() throws {
        let request = try Self.read("from=2026-03-01&to=2026-03-31")
        #expect(request.groupBy == ["day"])
        #expect(request.environment == .production)
        #expect(request.format == .json)
        #expect(request.limit == ReportRequest.defaultLimit)
        #expect(try Self.read("from=2026-03-01&to=2026-03-31&limit=100000").limit == 100_000)
        // Dimensions come back in the report's own order, whatever order they were asked in.
        let grouped = try Self.read("from=2026-03-01&to=2026-03-31&group_by=storefront,day,product&environment=sandbox")
        #expect(grouped.groupBy == ["day", "product", "storefront"])
        #expect(grouped.environment == .sandbox)
        // Empty: the whole range in one row.
        #expect(try Self.read("from=2026-03-01&to=2026-03-01&group_by=").groupBy == [])
    }

    @Test(
        arguments: [
            (nil, ReportFormat.json), ("text/csv", .csv), ("application/json", .json), ("*/*", .json),
            ("text/csv;q=0, application/json", .json), ("application/json, text/csv", .json),
            ("text/html, text/csv;q=0.9, application/json;q=0.8", .csv), ("TEXT/CSV", .csv),
        ] as [(String?, ReportFormat)])
    func acceptChoosesTheFormat(accept: String?, format: ReportFormat) throws {
        #expect(try Self.read("from=2026-03-01&to=2026-03-01", accept: accept).format == format)
        // The query parameter wins.
        #expect(try Self.read("from=2026-03-01&to=2026-03-01&format=json", accept: accept).format == .json)
    }

    @Test func everyProblemIsReportedAtOnce() {
        #expect {
            _ = try Self.read("from=2026-13-01&group_by=week&environment=staging&format=xml&limit=100001")
        } throws: { error in
            guard case RequestError.invalidQuery(let problems) = error else { return false }
            return problems.map(\.pointer) == ["?from", "?to", "?group_by", "?environment", "?format", "?limit"]
        }
    }

    @Test func theSubscriptionsReportNeedsTheDayAndContentHasNoEnvironment() throws {
        let subscriptions = ReportSpec(
            name: "subscriptions", dimensions: ["day", "product"], defaultGroupBy: ["day"],
            requiredDimensions: ["day"], hasEnvironment: true)
        #expect(
            try Self.read("from=2026-03-01&to=2026-03-01&group_by=product,day", spec: subscriptions).groupBy
                == ["day", "product"])
        #expect(throws: RequestError.self) {
            _ = try Self.read("from=2026-03-01&to=2026-03-01&group_by=product", spec: subscriptions)
        }
        let content = ReportSpec(
            name: "content", dimensions: ["day", "product", "version"], defaultGroupBy: ["day", "version"],
            hasEnvironment: false)
        #expect(try Self.read("from=2026-03-01&to=2026-03-01", spec: content).environment == nil)
        #expect(throws: RequestError.self) {
            _ = try Self.read("from=2026-03-01&to=2026-03-01&environment=production", spec: content)
        }
    }

    @Test func theWindowSplitsClosedDaysFromToday() throws {
        let today = try #require(ReportDay("2026-03-10"))
        let past = ReportWindow(try Self.read("from=2026-03-01&to=2026-03-05"), today: today)
        #expect((past.closedFrom, past.closedTo, past.liveDays) == ("2026-03-01", "2026-03-05", []))
        let current = ReportWindow(try Self.read("from=2026-03-01&to=2026-03-31"), today: today)
        #expect(
            (current.closedFrom, current.closedTo, current.liveDays) == ("2026-03-01", "2026-03-09", ["2026-03-10"]))
        let ahead = ReportWindow(try Self.read("from=2026-03-11&to=2026-03-31"), today: today)
        #expect(ahead.liveDays.isEmpty)
        #expect(ahead.closedTo < ahead.closedFrom)
    }
}
