import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// `GET /v1/admin/reports/sales`: the figures are what was recorded through the real apply path, per UTC day and
/// currency, a refund once, whether the day is in the daily summary or worked out from today's facts.
@Suite("Sales report")
struct SalesReportTests {
    typealias F = ReportFixtures

    /// Six days ago (D0) to today: D0's first and last second, the next day, a refund on D0+3, and a sale today.
    @Test("Sales per day and currency equal the transactions applied, a refund counted once")
    func salesPerDayAndCurrency() async throws {
        try await EntitlementsHarness.run { harness in
            let d0 = F.day(6)
            let first = F.sale(at: d0)
            let last = F.sale(at: d0.addingTimeInterval(86_399), price: 1790, currency: "EUR", storefront: "FRA")
            let subscription = F.sale(product: "pro_monthly", at: d0.addingTimeInterval(36_000), price: 990)
            let renewal = F.sale(
                product: "pro_monthly", original: subscription.transactionID, at: d0.addingTimeInterval(122_400),
                price: 990)
            let google = F.sale(
                at: d0.addingTimeInterval(86_400), price: nil, currency: nil, storefront: "US",
                store: .playStore)
            let seeds = F.sale(
                product: "seeds", at: d0.addingTimeInterval(129_600), price: 2970, quantity: 3)
            let shared = F.sale(at: d0.addingTimeInterval(90_000), ownership: .familyShared)
            let sandbox = F.sale(at: d0.addingTimeInterval(3_600), environment: .sandbox)
            let today = F.sale(at: Date().addingTimeInterval(-60).rounded())
            for (index, transaction) in [first, last, subscription, google, seeds, shared, sandbox, today].enumerated()
            {
                _ = try await harness.applied([transaction], user: "buyer-\(index)")
            }
            _ = try await harness.applied([renewal], user: "buyer-2")
            // The store's refund of the first sale, delivered twice.
            let refund = F.refund(first, at: d0.addingTimeInterval(3 * 86_400 + 28_800))
            _ = try await harness.applied([refund], user: nil)
            _ = try await harness.applied([refund], user: nil)

            let report = try await harness.reportDocument("sales", "from=\(F.name(6))&to=\(F.name(0))")
            #expect(report.report == "sales")
            #expect(report.groupBy == ["day"])
            #expect(report.environment == "production")
            #expect(
                report.columns == [
                    "day", "currency", "purchases", "renewals", "units", "revenue_milliunits", "refunds",
                    "refunded_milliunits", "estimated_revenue_milliunits", "estimated_refunded_milliunits",
                ])
            let rows = report.rows.map { row in report.columns.map { row[$0] ?? nil } }
            let expected: [[ReportDocument.Cell]] = [
                [.text(F.name(6)), "EUR", 1, 0, 1, 1790, 0, 0, 0, 0],
                [.text(F.name(6)), "USD", 2, 0, 2, 2980, 0, 0, 0, 0],
                [.text(F.name(5)), "USD", 1, 1, 4, 3960, 0, 0, 0, 0],
                [.text(F.name(5)), nil, 1, 0, 1, nil, 0, nil, nil, nil],
                [.text(F.name(3)), "USD", 0, 0, 0, 0, 1, 1990, 0, 0],
                [.text(F.name(0)), "USD", 1, 0, 1, 1990, 0, 0, 0, 0],
            ]
            #expect(rows == expected)
            #expect(
                report.total(currency: "USD")
                    == [
                        "currency": "USD", "purchases": 4, "renewals": 1, "units": 7, "revenue_milliunits": 8930,
                        "refunds": 1, "refunded_milliunits": 1990, "estimated_revenue_milliunits": 0,
                        "estimated_refunded_milliunits": 0,
                    ])
            #expect(report.total(currency: "EUR")?["revenue_milliunits"] == 1790)
            #expect(report.totals.count == 3)
            #expect(report.totals.last?["revenue_milliunits"] == .null)

            // The sandbox's purchase is its own environment's.
            let test = try await harness.reportDocument(
                "sales", "from=\(F.name(6))&to=\(F.name(0))&environment=sandbox")
            #expect(test.rows.count == 1)
            #expect(test.rows.first?["purchases"] == 1)
            #expect(test.rows.first?["day"] == .text(F.name(6)))
        }
    }

    @Test("Product, store and storefront split the figures; the storefront is the one the store recorded")
    func groupedByProductStoreAndStorefront() async throws {
        try await EntitlementsHarness.run { harness in
            let d0 = F.day(3)
            let sales = [
                F.sale(at: d0),
                F.sale(at: d0.addingTimeInterval(60), price: 1790, currency: "EUR", storefront: "FRA"),
                F.sale(at: d0.addingTimeInterval(120), price: 899, currency: "GBP", storefront: "GBR"),
                F.sale(product: "seeds", at: d0.addingTimeInterval(180), price: 990),
                F.sale(at: d0.addingTimeInterval(240), price: nil, currency: nil, storefront: "US", store: .playStore),
                F.sale(at: d0.addingTimeInterval(300), price: 2990, storefront: "CAN", store: .appStore),
            ]
            for (index, sale) in sales.enumerated() { _ = try await harness.applied([sale], user: "u\(index)") }
            let report = try await harness.reportDocument(
                "sales", "from=\(F.name(3))&to=\(F.name(3))&group_by=product,store,storefront")
            #expect(
                report.columns == [
                    "product_id", "store_product_id", "store", "storefront", "currency", "purchases", "renewals",
                    "units", "revenue_milliunits", "refunds", "refunded_milliunits", "estimated_revenue_milliunits",
                    "estimated_refunded_milliunits",
                ])
            let keys = report.rows.map { row in
                ["product_id", "store", "storefront", "currency", "revenue_milliunits"].map { row[$0] ?? "missing" }
            }
            let expected: [[ReportDocument.Cell]] = [
                ["garden", "app_store", "CAN", "USD", 2990],
                ["garden", "app_store", "FRA", "EUR", 1790],
                ["garden", "app_store", "GBR", "GBP", 899],
                ["garden", "app_store", "USA", "USD", 1990],
                ["garden", "play_store", "US", nil, nil],
                ["seeds", "app_store", "USA", "USD", 990],
            ]
            #expect(keys == expected)
            #expect(report.rows.allSatisfy { $0["store_product_id"] == .null })
        }
    }

    @Test("Days the summary already holds take in late transactions, refunds and their reversal")
    func summaryFollowsLaterFacts() async throws {
        try await EntitlementsHarness.run { harness in
            let d0 = F.day(5)
            let first = F.sale(at: d0.addingTimeInterval(600))
            _ = try await harness.applied([first], user: "a")
            let query = "from=\(F.name(5))&to=\(F.name(1))"
            let before = try await harness.reportDocument("sales", query)
            #expect(before.total(currency: "USD")?["purchases"] == 1)

            // A purchase the verifier applies late, dated on a day already summed up; a refund on another.
            let late = F.sale(at: d0.addingTimeInterval(86_400 + 60), price: 1790, currency: "EUR", storefront: "DEU")
            _ = try await harness.applied([late], user: "b")
            let refund = F.refund(first, at: d0.addingTimeInterval(2 * 86_400))
            _ = try await harness.applied([refund], user: nil)
            let after = try await harness.reportDocument("sales", query)
            #expect(after.rows(where: "day", is: .text(F.name(4))).first?["revenue_milliunits"] == 1790)
            #expect(after.rows(where: "day", is: .text(F.name(3))).first?["refunds"] == 1)
            #expect(after.total(currency: "USD")?["refunded_milliunits"] == 1990)

            // The store reverses the refund: it no longer counts.
            var reversal = refund
            reversal.revocationReversedAt = d0.addingTimeInterval(3 * 86_400)
            _ = try await harness.applied([reversal], user: nil)
            let reversed = try await harness.reportDocument("sales", query)
            #expect(reversed.rows(where: "day", is: .text(F.name(3))).isEmpty)
            #expect(reversed.total(currency: "USD")?["refunds"] == 0)
        }
    }

    @Test("A long report comes in pages of whole days that add up to the whole; CSV is always the whole range")
    func pagesOfWholeDays() async throws {
        try await EntitlementsHarness.run { harness in
            // Days 6, 5, 3 and 1 ago: 3, 1, 2 and 2 rows (a storefront each) by day and storefront.
            let storefronts: [(Int, [String])] = [
                (6, ["USA", "FRA", "GBR"]), (5, ["USA"]), (3, ["USA", "CAN"]), (1, ["DEU", "USA"]),
            ]
            var index = 0
            for (daysAgo, fronts) in storefronts {
                for (offset, front) in fronts.enumerated() {
                    let sale = F.sale(at: F.day(daysAgo).addingTimeInterval(Double(60 * offset)), storefront: front)
                    _ = try await harness.applied([sale], user: "pager-\(index)")
                    index += 1
                }
            }
            let range = "from=\(F.name(6))&to=\(F.name(0))&group_by=day,storefront"
            let whole = try await harness.reportDocument("sales", range)
            #expect(whole.rows.count == 8)
            #expect(whole.nextFrom == nil)
            #expect(whole.to == F.name(0))

            // About 3 rows a page: day 6 (3 rows); days 5 to 2 (3); day 1 through the end (2).
            var pages: [ReportDocument] = []
            var from = F.name(6)
            while pages.count < 10 {
                let page = try await harness.reportDocument(
                    "sales", "from=\(from)&to=\(F.name(0))&group_by=day,storefront&limit=3")
                pages.append(page)
                guard let next = page.nextFrom else { break }
                from = next
            }
            #expect(pages.map(\.from) == [F.name(6), F.name(5), F.name(1)])
            #expect(pages.map(\.to) == [F.name(6), F.name(2), F.name(0)])
            #expect(pages.map(\.rows.count) == [3, 3, 2])
            #expect(pages.flatMap(\.rows) == whole.rows)
            #expect(pages[1].total(currency: "USD")?["purchases"] == 3)

            // Rows are counted as the grouping makes them: by day alone (one currency) each day is one row, however
            // many storefronts its sales came from.
            let byDay = try await harness.reportDocument(
                "sales", "from=\(F.name(6))&to=\(F.name(0))&group_by=day&limit=3")
            #expect(
                byDay.rows.count == 3 && byDay.nextFrom == F.name(1), "\(byDay.rows), next \(byDay.nextFrom ?? "-")")
            // A day with more rows than the limit is one page; without `day` the limit does not apply.
            let crowded = try await harness.reportDocument(
                "sales", "from=\(F.name(6))&to=\(F.name(0))&group_by=day,storefront&limit=1")
            #expect(crowded.rows.count == 3 && crowded.nextFrom == F.name(5))
            let byStorefront = try await harness.reportDocument(
                "sales", "from=\(F.name(6))&to=\(F.name(0))&group_by=storefront&limit=1")
            #expect(byStorefront.rows.count == 5 && byStorefront.nextFrom == nil)
            // CSV is the export: every row, whatever the limit.
            let csv = try await harness.report("sales", range + "&limit=1&format=csv")
            #expect(ReportDocument.parseCSV(String(buffer: csv.body)) == whole.csvLines)
            #expect(try await harness.report("sales", range + "&limit=0").status == .badRequest)
        }
    }

    @Test("CSV holds the JSON's rows, asked for by query or by Accept")
    func csvEqualsJSON() async throws {
        try await EntitlementsHarness.run { harness in
            let d0 = F.day(2)
            for (index, sale) in [
                F.sale(at: d0), F.sale(at: d0, price: 1790, currency: "EUR", storefront: "FRA"),
                F.sale(product: "seeds", at: d0.addingTimeInterval(86_400), price: 990),
                F.sale(at: d0, price: nil, currency: nil, storefront: "US", store: .playStore),
            ].enumerated() {
                _ = try await harness.applied([sale], user: "u\(index)")
            }
            let query = "from=\(F.name(2))&to=\(F.name(0))&group_by=day,product,storefront"
            let json = try await harness.reportDocument("sales", query)
            #expect(json.rows.count == 4)
            for answer in [
                try await harness.report("sales", query + "&format=csv"),
                try await harness.report("sales", query, accept: "text/csv, application/json;q=0.5"),
            ] {
                #expect(answer.status == .ok)
                #expect(answer.headers[.contentType]?.hasPrefix("text/csv") == true)
                #expect(
                    answer.headers[.contentDisposition]
                        == "attachment; filename=\"sales-\(F.name(2))-\(F.name(0)).csv\"")
                #expect(ReportDocument.parseCSV(String(buffer: answer.body)) == json.csvLines)
            }
            // Accept prefers JSON, or does not name CSV: JSON.
            let preferred = try await harness.report("sales", query, accept: "application/json, text/csv")
            #expect(preferred.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test("Sales CSV: store product ids and storefronts a spreadsheet would run as formulas come back escaped")
    func salesCSVEscapesFormulas() async throws {
        try await EntitlementsHarness.run { harness in
            let at = Date().addingTimeInterval(-120).rounded()
            for (index, text) in ReportDocument.formulas.enumerated() {
                // A known product sold in a storefront named `text`, and a store product the catalog does not know.
                _ = try await harness.applied([F.sale(at: at, storefront: text)], user: "buyer-\(index)")
                var unknown = F.sale(at: at, storefront: "USA")
                unknown.storeProductID = text
                _ = try await harness.applied([unknown], user: "buyer-\(index)")
            }
            let query = "from=\(F.name(0))&to=\(F.name(0))&group_by=product,storefront"
            let json = try await harness.reportDocument("sales", query)
            let answer = try await harness.report("sales", query + "&format=csv")
            #expect(answer.status == .ok)
            let lines = ReportDocument.parseCSV(String(buffer: answer.body))
            #expect(lines == json.csvLines)
            let escaped = Set(ReportDocument.formulas.map { "'" + $0 })
            #expect(Set(ReportDocument.column("storefront", of: lines) ?? []) == escaped.union(["USA"]))
            #expect(Set(ReportDocument.column("store_product_id", of: lines) ?? []) == escaped.union([""]))
            // Ordinary values, and the figures, as they are.
            #expect(Set(ReportDocument.column("product_id", of: lines) ?? []) == ["garden", ""])
            #expect(Set(ReportDocument.column("revenue_milliunits", of: lines) ?? []) == ["1990"])
        }
    }

    @Test("A secret key of one app never sees another app's figures")
    func appsAreApart() async throws {
        try await EntitlementsHarness.run { harness in
            let other = try await harness.otherApp()
            let d0 = F.day(1)
            _ = try await harness.applied([F.sale(at: d0)], user: "mine")
            _ = try await other.applied([F.sale(at: d0, price: 4990), F.sale(at: d0, price: 990)], user: "theirs")
            let query = "from=\(F.name(1))&to=\(F.name(1))"
            let mine = try await harness.reportDocument("sales", query)
            let theirs = try await other.reportDocument("sales", query)
            #expect(mine.total(currency: "USD")?["revenue_milliunits"] == 1990)
            #expect(theirs.total(currency: "USD")?["revenue_milliunits"] == 5980)
            #expect(try await harness.reportDocument("usage", query).total()?["purchases"] == 1)
            #expect(try await other.reportDocument("usage", query).total()?["purchases"] == 2)
        }
    }

    /// Each refusal is a 400 problem naming the query parameter at fault.
    static let badQueries: [(query: String, pointer: String)] = [
        ("from=2026-03-02&to=2026-03-01", "?to"),
        ("from=2025-01-01&to=2026-02-05", "?to"),
        ("from=2026-03-01", "?to"),
        ("to=2026-03-01", "?from"),
        ("from=2026-02-30&to=2026-03-01", "?from"),
        ("from=2026-3-1&to=2026-03-01", "?from"),
        ("from=1969-12-31&to=2026-03-01", "?from"),
        ("from=2026-03-01&to=2026-03-01&from=2026-03-01", "?from"),
        ("from=2026-03-01&to=2026-03-02&group_by=week", "?group_by"),
        ("from=2026-03-01&to=2026-03-02&group_by=day,day", "?group_by"),
        ("from=2026-03-01&to=2026-03-02&environment=staging", "?environment"),
        ("from=2026-03-01&to=2026-03-02&format=xml", "?format"),
    ]

    @Test("Bad ranges, groupings and formats are 400 invalid_query naming the parameter")
    func badQueries() async throws {
        try await EntitlementsHarness.run(products: []) { harness in
            for (query, pointer) in Self.badQueries {
                let answer = try await harness.report("sales", query)
                #expect(answer.status == .badRequest, "\(query)")
                #expect(answer.headers[.contentType] == "application/problem+json")
                #expect(answer.problemCode == "invalid_query")
                let errors = try TestJSON.object(answer.body.readableBytesView)["errors"] as? [[String: Any]] ?? []
                #expect(
                    errors.contains { $0["pointer"] as? String == pointer }, "\(query): \(String(buffer: answer.body))")
            }
        }
    }

    @Test("The 400-day range is the most: 400 days pass, 401 do not; a public key is refused")
    func rangeLimitAndKeys() async throws {
        try await EntitlementsHarness.run(products: []) { harness in
            #expect(try await harness.report("sales", "from=2025-01-01&to=2026-02-04").status == .ok)
            #expect(try await harness.report("sales", "from=2025-01-01&to=2026-02-05").status == .badRequest)
            #expect(
                try await harness.report("consumables", "from=2026-01-01&to=2026-01-02&environment=sandbox")
                    .status == .badRequest)
            for name in ["sales", "usage", "consumables"] {
                let answer = try await harness.report(name, "from=2026-01-01&to=2026-01-02", kind: .public)
                #expect(answer.status == .forbidden)
            }
        }
    }
}

extension Date {
    /// This date in whole seconds (as stores send them).
    fileprivate func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
