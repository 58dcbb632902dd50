import Foundation
import HTTPTypes
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// `GET /v1/admin/reports/churn`, `/refunds` and `/ltv`: the standard chart history (``ChartHistory``), written in
/// bulk SQL, with ECB rates of a year loaded; `Tests/Oracles/revenue_charts.py` computes every figure independently,
/// in USD at the rate of the right day and in each currency as paid, and the API matches it to the milliunit.
@Suite("Revenue charts: churn, refund rate, realized LTV")
struct RevenueChartTests {
    /// ECB rates (EUR base) of every Tuesday from 31 December 2024 for 58 weeks; the days between use the latest
    /// before them.
    static let rates: [(day: String, usd: String, gbp: String)] = (0..<58).map { week in
        let day = ChartHistory.date("2024-12-31T00:00:00Z").addingTimeInterval(Double(week) * 7 * 86_400)
        return (
            String(day.ISO8601Format().prefix(10)), String(format: "%.4f", 1.0213 + Double(week % 10) * 0.0037),
            String(format: "%.5f", 0.82137 + Double(week % 7) * 0.00211)
        )
    }

    static let queries: [(range: (String, String), groupBy: [String])] = [
        (("2025-01-01", "2025-12-31"), ["month"]), (("2025-01-01", "2025-12-31"), ["month", "product"]),
        (("2025-01-01", "2025-12-31"), ["month", "store", "storefront"]), (("2025-01-10", "2025-04-20"), []),
        (("2025-02-01", "2025-03-10"), ["day"]), (("2025-01-15", "2025-03-15"), ["month", "product", "storefront"]),
    ]

    @Test("Churn, refunds and LTV equal the oracle's, in USD and as paid", arguments: ["churn", "refunds", "ltv"])
    func matchesTheOracle(chart: String) async throws {
        try await EntitlementsHarness.run(products: CohortChartTests.products) { harness in
            let history = ChartHistory.standard()
            try await history.seed(appID: harness.appID, database: harness.database)
            let loaded = try await harness.loadRates(
                MRRReportTests.ecbDocument(Self.rates), type: "application/xml")
            #expect(loaded.status == .ok, "\(loaded.text)")
            let periods = try JSONSerialization.jsonObject(with: Data(try history.json(appID: harness.appID).utf8))
            for (range, groupBy) in Self.queries {
                for currency in ["USD", nil] {
                    let query =
                        "from=\(range.0)&to=\(range.1)&group_by=\(groupBy.joined(separator: ","))"
                        + (currency.map { "&currency=\($0)" } ?? "")
                    let answer = try await harness.report(chart, query)
                    #expect(answer.status == .ok, "\(query): \(answer.text)")
                    #expect(try answer.violations(.get, "/v1/admin/reports/\(chart)") == [], "\(query)")
                    var input: [String: Any] = [
                        "chart": chart, "from": range.0, "to": range.1, "group_by": groupBy,
                        "environment": "production", "now": Int(Date().timeIntervalSince1970), "periods": periods,
                        "base": "EUR", "durations": ChartHistory.durations,
                        "rates": Self.rates.flatMap { rate in
                            [
                                ["day": rate.day, "currency": "USD", "rate": rate.usd],
                                ["day": rate.day, "currency": "GBP", "rate": rate.gbp],
                            ]
                        },
                    ]
                    if let currency { input["currency"] = currency }
                    let expected = try ChartHistory.oracle("revenue_charts.py", input: input)
                    #expect(!expected.isEmpty)
                    #expect(try MRRReportTests.rows(answer) == expected, "\(chart)?\(query)")
                }
            }
        }
    }

    @Test("By hand: a refunded year in pounds; CSV; a rate missing is a 422 naming it")
    func byHand() async throws {
        try await EntitlementsHarness.run(products: CohortChartTests.products) { harness in
            var history = ChartHistory()
            history.subscriber(
                "year", start: ChartHistory.date("2025-01-08T16:00:00Z"), plan: [("annual", "normal")],
                currency: "GBP", storefront: "GBR", refund: 24 * 24)
            history.subscriber(
                "month", start: ChartHistory.date("2025-01-10T10:00:00Z"), plan: [("basic", "normal")],
                currency: "USD", storefront: "USA")
            try await history.seed(appID: harness.appID, database: harness.database)

            // As paid: 38.99 GBP bought in January and refunded on 1 February; 4.99 USD bought. Seen at January's
            // end, the refund has not happened yet.
            let header = "period_start,currency,transactions,refunds,revenue_milliunits,refunded_milliunits\r\n"
            let refunds = try await harness.report("refunds", "from=2025-01-01&to=2025-02-28&format=csv")
            #expect(refunds.text == header + "2025-01-01,GBP,1,1,38990,38990\r\n2025-01-01,USD,1,0,4990,0\r\n")
            let january = try await harness.report("refunds", "from=2025-01-01&to=2025-01-31&format=csv")
            #expect(january.text == header + "2025-01-01,GBP,1,0,38990,0\r\n2025-01-01,USD,1,0,4990,0\r\n")
            // February: both churned (the year on its refund, the month at its end), none left.
            let churn = try await harness.report("churn", "from=2025-02-01&to=2025-02-28&group_by=")
            #expect(
                try MRRReportTests.rows(churn) == [
                    #"{"active_at_start":1,"churned":1,"churned_mrr_milliunits":3249,"currency":"GBP","mrr_at_start_milliunits":3249}"#,
                    #"{"active_at_start":1,"churned":1,"churned_mrr_milliunits":4990,"currency":"USD","mrr_at_start_milliunits":4990}"#,
                ])
            let ltv = try await harness.report("ltv", "from=2025-01-01&to=2025-12-31")
            #expect(
                try MRRReportTests.rows(ltv) == [
                    #"{"cohort":"2025-01-01","currency":"GBP","customers":1,"ltv_milliunits":0,"refunded_milliunits":38990,"revenue_milliunits":0}"#,
                    #"{"cohort":"2025-01-01","currency":"USD","customers":1,"ltv_milliunits":4990,"refunded_milliunits":0,"revenue_milliunits":4990}"#,
                ])

            for chart in ["churn", "refunds", "ltv"] {
                let missing = try await harness.report(chart, "from=2025-01-01&to=2025-03-31&currency=JPY")
                #expect(missing.status == .unprocessableContent, "\(chart)")
                #expect(missing.problemCode == "exchange_rate_missing")
                #expect(try missing.violations(.get, "/v1/admin/reports/\(chart)") == [])
                let both = try await harness.report(chart, "from=2025-01-01&to=2025-03-31&group_by=day,month")
                #expect(both.status == .badRequest)
            }
        }
    }
}
