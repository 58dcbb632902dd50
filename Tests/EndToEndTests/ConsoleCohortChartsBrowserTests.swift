import Foundation
import NIOHTTP1
import Testing

/// The Charts page's monthly charts and the customer page's LTV (same suite and stack as ``ConsoleBrowserTests``, the
/// demo shop's weeks of sales with one refunded App Store purchase): a viewer reads every monthly chart, whose CSV
/// holds exactly the reports API's figures by month, the retention triangle's cells saying their counts; and a
/// customer's page shows the realized LTV the API gives, which is what their transactions add up to.
extension ConsoleBrowserTests {
    @Test func eachMonthlyChartsCSVHoldsTheReportAPIsFigures() async throws {
        let world = try self.world
        let to = Self.day(0)
        let from = Self.day(-41)
        try await Self.loadRates(world)
        // Churn's, refunds' and LTV's rows start on the range's first day; trial cohorts are whole months.
        let months = Self.monthLabels(from: from, to: to)
        let wholeMonths = Self.monthLabels(from: String(from.prefix(7)) + "-01", to: to)
        let query = "from=\(from)&to=\(to)&environment=production&group_by=month"
        // What each chart draws: its report (in EUR where the API converts), its CSV's label column and figures.
        let drawn: [(chart: String, id: String, report: String, label: String, columns: [String])] = [
            ("trial-conversion", "trial-conversion", "trial-conversion", "cohort", ["trials", "converted", "pending"]),
            ("churn", "churn", "churn?currency=EUR", "period_start", ["active_at_start", "churned"]),
            (
                "churn", "churn-amounts", "churn?currency=EUR", "period_start",
                ["mrr_at_start_milliunits", "churned_mrr_milliunits"]
            ),
            ("refunds", "refunds", "refunds?currency=EUR", "period_start", ["transactions", "refunds"]),
            (
                "refunds", "refunds-amounts", "refunds?currency=EUR", "period_start",
                ["revenue_milliunits", "refunded_milliunits"]
            ),
            ("ltv", "ltv", "ltv?currency=EUR", "cohort", ["customers"]),
            ("ltv", "ltv-amounts", "ltv?currency=EUR", "cohort", ["ltv_milliunits"]),
        ]
        var refunds = 0
        // Read by a viewer: the charts are theirs.
        let password = try await Self.member(world, email: "charts-viewer@example.com", role: "viewer")
        try await world.browse("console-monthly-charts") { browser in
            try await Self.signInAsMember(browser, world, email: "charts-viewer@example.com", password: password)
            for (chart, id, report, label, columns) in drawn {
                let path = report.contains("?") ? "\(report)&\(query)" : "\(report)?\(query)"
                let rows = try await world.object("/v1/admin/reports/\(path)")["rows"] as? [[String: Any]] ?? []
                #expect(!rows.isEmpty, "the demo's sales have \(report) rows")
                if id == "refunds" { refunds = rows.reduce(0) { $0 + ($1["refunds"] as? Int ?? 0) } }
                let currency = report.contains("currency=EUR") ? "&currency=EUR" : ""
                try await world.go(browser, "/charts?chart=\(chart)&from=\(from)&to=\(to)\(currency)")
                try await world.waitForPage(browser, "Charts")
                let labels = chart == "trial-conversion" ? wholeMonths : months
                #expect(
                    try await Self.chartCSV(browser, id) == Self.csv(labels, rows, columns, label: label), "\(id)")
            }
            #expect(refunds >= 1, "the demo's refund is in the refunds chart")
            // Every point of a rate chart names its percentage on hover.
            try await world.go(browser, "/charts?chart=refunds&from=\(from)&to=\(to)&currency=EUR")
            let hover = try await browser.execute(
                "return document.querySelector('[data-chart=refunds-rate] circle title').textContent")
            #expect((hover as? String ?? "").contains("%"), "\(String(describing: hover))")

            // Retention: the triangle's CSV is the API's rows, each cell its share with the counts on hover.
            let retention = try await world.object("/v1/admin/reports/retention?\(query)")
            let cells = retention["rows"] as? [[String: Any]] ?? []
            try await world.go(browser, "/charts?chart=retention&from=\(from)&to=\(to)")
            try await world.waitForPage(browser, "Charts")
            #expect(try await Self.changeControls(browser).isEmpty)
            try #require(!cells.isEmpty, "the demo's monthly subscriptions started in the range")
            var lines = ["cohort,period,subscriptions,reached,retained"]
            for cell in cells {
                let figures = ["subscriptions", "reached", "retained"].map { String(cell[$0] as? Int ?? 0) }
                lines.append(
                    ([cell["cohort"] as? String ?? "", String(cell["period"] as? Int ?? 0)] + figures)
                        .joined(separator: ","))
            }
            #expect(try await Self.chartCSV(browser, "retention") == lines.joined(separator: "\r\n") + "\r\n")
            let first = cells[0]
            let title = try await browser.execute(
                "return document.querySelector(`[data-chart=retention] tr[data-cohort='${arguments[0]}'] td[data-period='0']`).title",
                [first["cohort"] as? String ?? ""])
            let counts = "\(first["retained"] as? Int ?? -1) of \(first["reached"] as? Int ?? -1) retained"
            #expect((title as? String ?? "").contains(counts), "\(String(describing: title))")
        }
    }

    @Test func theCustomerPageShowsTheCustomersRealizedLTV() async throws {
        let world = try self.world
        try await Self.loadRates(world)
        let (customer, answer) = try await Self.refundedCustomerLTV(world)
        // The API's figures are the customer's transactions added up: per currency, all paid and the refunded part.
        let history = try await world.object("/v1/customers/\(customer)/history")
        var paid: [String: Int] = [:]
        var refunded: [String: Int] = [:]
        for transaction in history["transactions"] as? [[String: Any]] ?? [] {
            let price = transaction["price_milliunits"] as? Int ?? 0
            guard transaction["environment"] as? String == "production", price > 0,
                let currency = transaction["currency"] as? String
            else { continue }
            paid[currency, default: 0] += price
            if !(transaction["revoked_at"] is NSNull) { refunded[currency, default: 0] += price }
        }
        let currencies = answer["currencies"] as? [[String: Any]] ?? []
        #expect(Set(currencies.compactMap { $0["currency"] as? String }) == Set(paid.keys))
        for figures in currencies {
            let currency = figures["currency"] as? String ?? "?"
            #expect(figures["paid_milliunits"] as? Int == paid[currency], "\(currency)")
            #expect(figures["refunded_milliunits"] as? Int == refunded[currency] ?? 0, "\(currency)")
        }
        let converted = try #require(answer["converted"] as? [String: Any])

        try await world.browse("console-customer-ltv") { browser in
            try await world.signIn(browser)
            try await world.go(browser, "/customers/\(customer)")
            try await world.waitForPage(browser, "Customer \(customer)")
            let shown = try await browser.element("table.ltv .ltv-value[data-currency='EUR']")
            #expect(try await shown.attribute("data-milliunits") == String(converted["ltv_milliunits"] as? Int ?? -1))
            let text = (try await shown.text).replacingOccurrences(of: "\u{a0}", with: " ")
            #expect(text.hasPrefix("EUR"), "\(text)")
            for figures in currencies {
                let currency = figures["currency"] as? String ?? "?"
                let line = try await browser.element("table.ltv .ltv-value[data-currency='\(currency)']")
                #expect(try await line.attribute("data-milliunits") == String(figures["ltv_milliunits"] as? Int ?? -1))
            }
        }
    }

    // MARK: Helpers

    /// Loads a EUR base with a USD rate from before any sale (as the MRR chart's test does: the same body again
    /// writes nothing).
    static func loadRates(_ world: ConsoleWorld) async throws {
        let rates: [String: Any] = [
            "base": "EUR", "rates": [["day": Self.day(-400), "currency": "USD", "rate": "1.0962"]],
        ]
        let (loaded, _) = try await world.api(.PUT, "/v1/admin/exchange-rates", json: rates)
        #expect(loaded == 200)
    }

    /// The demo customer whose purchase was refunded, and their LTV in EUR as the API gives it.
    static func refundedCustomerLTV(_ world: ConsoleWorld) async throws -> (String, [String: Any]) {
        let found = try await world.object("/v1/admin/customers?query=demo-&limit=50")
        for match in found["matches"] as? [[String: Any]] ?? [] {
            guard let customer = (match["app_user_ids"] as? [String])?.first else { continue }
            let answer = try await world.object("/v1/admin/customers/\(customer)/ltv?currency=EUR")
            let currencies = answer["currencies"] as? [[String: Any]] ?? []
            if currencies.contains(where: { $0["refunds"] as? Int ?? 0 > 0 }) { return (customer, answer) }
        }
        throw Browser.Failure("no demo customer has a refunded purchase")
    }

    /// The first days of a range's monthly rows: `from`, then the first of each later month up to `to`.
    static func monthLabels(from: String, to: String) -> [String] {
        var labels = [from]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        let style = Date.ISO8601FormatStyle().year().month().day()
        guard var month = try? Date("\(from.prefix(7))-01T00:00:00Z", strategy: .iso8601) else { return labels }
        while let next = calendar.date(byAdding: .month, value: 1, to: month), next.formatted(style) <= to {
            labels.append(next.formatted(style))
            month = next
        }
        return labels
    }

    /// The CSV the API's `rows` make for `columns`, a line per label of the `label` column (a label without a row
    /// as zeros).
    static func csv(_ labels: [String], _ rows: [[String: Any]], _ columns: [String], label: String) -> String {
        var lines = [([label] + columns).joined(separator: ",")]
        for value in labels {
            let row = rows.first { $0[label] as? String == value } ?? [:]
            lines.append(([value] + columns.map { String(row[$0] as? Int ?? 0) }).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
