import Foundation
import HTTPTypes
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// `GET /v1/admin/reports/trial-conversion` and `/retention`: the standard chart history (``ChartHistory``), written
/// in bulk SQL, whose cohorts `Tests/Oracles/cohort_charts.py` computes independently; the API matches it row for row
/// in every grouping.
@Suite("Cohort charts (trial conversion, retention) and the daily activity")
struct CohortChartTests {
    static let products: [Product] = [
        MRRReportTests.product("basic", duration: "P1M"), MRRReportTests.product("plus", duration: "P1M"),
        MRRReportTests.product("annual", duration: "P1Y"), MRRReportTests.product("weekly", duration: "P1W"),
    ]

    /// Every grouping a console draws, over a range that holds the whole history and over a shorter one (seen as of
    /// its end: later conversions and months are not counted).
    static let queries: [(range: (String, String), groupBy: [String])] = [
        (("2025-01-01", "2025-12-31"), ["month"]), (("2025-01-01", "2025-12-31"), ["month", "product"]),
        (("2025-01-01", "2025-12-31"), ["day"]), (("2025-01-01", "2025-12-31"), ["month", "store", "storefront"]),
        (("2025-01-01", "2025-03-15"), ["month"]), (("2025-01-01", "2025-12-31"), []),
        (("2025-02-01", "2025-02-28"), ["day", "product", "store", "storefront"]),
    ]

    @Test(
        "Trial conversion and retention equal the oracle's in every grouping",
        arguments: ["trial-conversion", "retention"])
    func matchesTheOracle(chart: String) async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let history = ChartHistory.standard()
            try await history.seed(appID: harness.appID, database: harness.database)
            let periods = try JSONSerialization.jsonObject(with: Data(try history.json(appID: harness.appID).utf8))
            for (range, groupBy) in Self.queries {
                let query = "from=\(range.0)&to=\(range.1)&group_by=\(groupBy.joined(separator: ","))"
                let answer = try await harness.report(chart, query)
                #expect(answer.status == .ok, "\(query): \(answer.text)")
                #expect(try answer.violations(.get, "/v1/admin/reports/\(chart)") == [], "\(query)")
                let expected = try ChartHistory.oracle(
                    "cohort_charts.py",
                    input: [
                        "chart": chart, "from": range.0, "to": range.1, "group_by": groupBy,
                        "environment": "production", "now": Int(Date().timeIntervalSince1970), "periods": periods,
                    ])
                #expect(!expected.isEmpty)
                #expect(try MRRReportTests.rows(answer) == expected, "\(chart)?\(query)")
            }
            // The sandbox is its own history: one trial, converted.
            let sandbox = try await harness.report(chart, "from=2025-01-01&to=2025-12-31&environment=sandbox")
            let rows = try #require(try sandbox.json["rows"] as? [[String: Any]])
            #expect(rows.first?["cohort"] as? String == "2025-01-01")
            #expect(rows.first?[chart == "retention" ? "subscriptions" : "converted"] as? Int == 1)
        }
    }

    @Test("By hand: a January trial cohort and a retention triangle's corners; CSV, refusals")
    func byHand() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            var history = ChartHistory()
            let monthly = Array(repeating: (product: "basic", type: "normal"), count: 3)
            // Three trials in January: one converts, one lapses, one starts on 31 January and is still running
            // when the chart is seen at the end of 3 February.
            history.subscriber(
                "t1", start: ChartHistory.date("2025-01-02T10:00:00Z"), plan: [("basic", "trial")] + monthly,
                currency: "USD", storefront: "USA")
            history.subscriber(
                "t2", start: ChartHistory.date("2025-01-09T10:00:00Z"), plan: [("basic", "trial")], currency: "USD",
                storefront: "USA")
            history.subscriber(
                "t3", start: ChartHistory.date("2025-01-31T10:00:00Z"), plan: [("basic", "trial")] + monthly,
                currency: "USD", storefront: "USA")
            try await history.seed(appID: harness.appID, database: harness.database)

            let trials = try await harness.report("trial-conversion", "from=2025-01-01&to=2025-02-03")
            #expect(
                try MRRReportTests.rows(trials) == [#"{"cohort":"2025-01-01","converted":1,"pending":1,"trials":3}"#])
            let later = try await harness.report("trial-conversion", "from=2025-01-01&to=2025-02-28")
            #expect(
                try MRRReportTests.rows(later) == [#"{"cohort":"2025-01-01","converted":2,"pending":0,"trials":3}"#])

            // t1 paid from 9 January for three months: months 0, 1, 2 retained, month 3 (from 9 April) not.
            let triangle = try await harness.report("retention", "from=2025-01-01&to=2025-05-31")
            let cells = try #require(try triangle.json["rows"] as? [[String: Any]])
            let january = cells.filter { $0["cohort"] as? String == "2025-01-01" }
            #expect(january.map { $0["retained"] as? Int } == [1, 1, 1, 0, 0])
            #expect(january.map { $0["reached"] as? Int } == [1, 1, 1, 1, 1])
            let february = cells.filter { $0["cohort"] as? String == "2025-02-01" }
            #expect(february.map { $0["retained"] as? Int } == [1, 1, 1, 0])

            let csv = try await harness.report("retention", "from=2025-01-01&to=2025-05-31&format=csv")
            #expect(csv.text.hasPrefix("cohort,period,subscriptions,reached,retained\r\n2025-01-01,0,1,1,1\r\n"))
            for refused in [
                "from=2025-01-01&to=2025-05-31&group_by=month,day", "from=2025-01-01&to=2025-05-31&group_by=week",
                "from=2025-01-01&to=2024-12-01",
            ] {
                let answer = try await harness.report("retention", refused)
                #expect(answer.status == .badRequest, "\(refused)")
                #expect(try answer.violations(.get, "/v1/admin/reports/retention") == [])
            }
            let publicKey = try await harness.report("trial-conversion", "from=2025-01-01&to=2025-01-31", kind: .public)
            #expect(publicKey.status == .forbidden)
        }
    }

    @Test("Active subscriptions and trials, new customers and new paying customers per day equal the oracle's")
    func activity() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let history = ChartHistory.standard()
            try await history.seed(appID: harness.appID, database: harness.database)
            let periods = try JSONSerialization.jsonObject(with: Data(try history.json(appID: harness.appID).utf8))
            for (from, to, environment) in [
                ("2024-12-25", "2025-05-31", "production"), ("2025-06-01", "2025-12-31", "production"),
                ("2025-01-01", "2025-03-31", "sandbox"),
            ] {
                let answer = try await harness.report("activity", "from=\(from)&to=\(to)&environment=\(environment)")
                #expect(try answer.violations(.get, "/v1/admin/reports/activity") == [])
                let expected = try ChartHistory.oracle(
                    "cohort_charts.py",
                    input: [
                        "chart": "activity", "from": from, "to": to, "group_by": ["day"], "environment": environment,
                        "now": Int(Date().timeIntervalSince1970), "periods": periods,
                    ])
                #expect(try MRRReportTests.rows(answer) == expected, "\(from)...\(to) \(environment)")
            }
            // The whole of 2025 at once: every subscriber is a new customer, the trial-only ones never pay.
            let year = try await harness.report("activity", "from=2025-01-01&to=2025-12-31")
            let totals = try #require((try year.json["totals"] as? [[String: Any]])?.first)
            #expect(totals["new_customers"] as? Int == Set(history.periods.map(\.customer)).count)
            let payers = Set(
                history.periods.filter { $0.periodType != "trial" && $0.environment == "production" }
                    .map(\.customer))
            #expect(totals["new_paying_customers"] as? Int == payers.count)
            let grouped = try await harness.report("activity", "from=2025-01-01&to=2025-12-31&group_by=")
            #expect(grouped.status == .badRequest)
        }
    }
}
