import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// `GET /v1/admin/reports/usage` and `/consumables`: purchases by the app version they came from, and consumable units
/// bought, spent and refunded, as the real apply and consume paths recorded them.
@Suite("Usage and consumables reports")
struct UsageReportTests {
    typealias F = ReportFixtures

    @Test("Purchases by app version, in version order, add up to the sales report's purchases")
    func purchasesByAppVersion() async throws {
        try await EntitlementsHarness.run { harness in
            let d0 = F.day(2)
            let presented: [(String?, StoreTransaction)] = [
                ("1.2", F.sale(at: d0)),
                ("1.10", F.sale(at: d0.addingTimeInterval(60))),
                ("1.10", F.sale(product: "seeds", at: d0.addingTimeInterval(120), price: 990)),
                ("1.2", F.sale(at: d0.addingTimeInterval(86_400))),
                (nil, F.sale(at: d0.addingTimeInterval(86_460))),
                ("1.0", F.sale(product: "pro_monthly", at: d0.addingTimeInterval(180), price: 990)),
            ]
            for (index, (version, transaction)) in presented.enumerated() {
                let request = ApplyRequest(
                    appUserID: "user-\(index)", deviceID: "phone", source: .purchase, transactions: [transaction],
                    appVersion: version)
                #expect(
                    try await harness.send(.post, "/internal/v1/apply", json: try TestJSON.encode(request)).status
                        == .ok)
            }
            // A renewal counts under the version its subscription was bought in.
            let renewal = F.sale(
                product: "pro_monthly", original: presented[5].1.transactionID, at: d0.addingTimeInterval(86_400),
                price: 990)
            _ = try await harness.applied([renewal], user: "user-5")

            let query = "from=\(F.name(2))&to=\(F.name(0))"
            let usage = try await harness.reportDocument("usage", query)
            #expect(usage.columns == ["app_version", "purchases", "renewals", "units"])
            let rows = usage.rows.map { row in usage.columns.map { row[$0] ?? "missing" } }
            let expected: [[ReportDocument.Cell]] = [
                ["1.0", 1, 1, 2], ["1.2", 2, 0, 2], ["1.10", 2, 0, 2], [.null, 1, 0, 1],
            ]
            #expect(rows == expected)
            let sales = try await harness.reportDocument("sales", query)
            #expect(usage.total()?["purchases"] == sales.total(currency: "USD")?["purchases"])

            let perProduct = try await harness.reportDocument("usage", query + "&group_by=day,app_version,product")
            #expect(
                perProduct.rows(where: "app_version", is: "1.10").map { $0["product_id"] ?? nil }
                    == ["garden", "seeds"])
            #expect(perProduct.rows(where: "day", is: .text(F.name(1))).count == 3)
        }
    }

    @Test("Usage CSV: an app version a spreadsheet would run as a formula comes back escaped, an ordinary one as it is")
    func usageCSVEscapesFormulas() async throws {
        try await EntitlementsHarness.run { harness in
            let versions = ReportDocument.formulas + ["2.4.0"]
            for (index, version) in versions.enumerated() {
                let request = ApplyRequest(
                    appUserID: "user-\(index)", deviceID: "phone", source: .purchase,
                    transactions: [F.sale(at: Date().addingTimeInterval(-120).rounded())], appVersion: version)
                let applied = try await harness.send(.post, "/internal/v1/apply", json: try TestJSON.encode(request))
                #expect(applied.status == .ok, "\(String(buffer: applied.body))")
            }
            let query = "from=\(F.name(0))&to=\(F.name(0))"
            let answer = try await harness.report("usage", query + "&format=csv")
            #expect(answer.status == .ok)
            let lines = ReportDocument.parseCSV(String(buffer: answer.body))
            #expect(lines.first == ["app_version", "purchases", "renewals", "units"])
            let fields = ReportDocument.column("app_version", of: lines) ?? []
            #expect(fields.sorted() == (ReportDocument.formulas.map { "'" + $0 } + ["2.4.0"]).sorted())
            #expect(ReportDocument.column("purchases", of: lines) == Array(repeating: "1", count: versions.count))
            // The JSON answer holds the versions as they were given.
            let json = try await harness.reportDocument("usage", query)
            #expect(Set(json.rows.compactMap { $0["app_version"] }) == Set(versions.map(ReportDocument.Cell.text)))
        }
    }

    @Test("Consumable units bought, spent and taken back by a refund, per day and product")
    func consumableUnits() async throws {
        try await EntitlementsHarness.run { harness in
            // Three packs of 5 seeds, of which 4 are spent; then the store refunds the purchase: the 11 left go back.
            let seeds = F.sale(product: "seeds", at: Date().addingTimeInterval(-120).rounded(), quantity: 3)
            _ = try await harness.applied([seeds], user: "gardener")
            #expect(try await harness.consume("gardener", "seeds", quantity: 4).status == .ok)
            _ = try await harness.applied([F.refund(seeds, at: Date().addingTimeInterval(-60).rounded())], user: nil)

            let report = try await harness.reportDocument(
                "consumables", "from=\(F.name(1))&to=\(F.name(0))&group_by=day,product")
            #expect(report.environment == nil)
            #expect(report.columns == ["day", "product_id", "bought", "spent", "refunded"])
            #expect(report.rows.count == 1)
            #expect(
                report.rows.first == [
                    "day": .text(F.name(0)), "product_id": "seeds", "bought": 15, "spent": 4,
                    "refunded": 11,
                ])
            #expect(report.total() == ["bought": 15, "spent": 4, "refunded": 11])
        }
    }

    @Test("Consumables CSV: a product id a spreadsheet would run as a formula comes back escaped")
    func consumablesCSVEscapesFormulas() async throws {
        // The catalog's product ids may start with `-`, the one formula character it allows (`-A1` negates a cell).
        let products =
            EntitlementsFixtures.products + [EntitlementsFixtures.product("-A1", type: .consumable, quantity: 2)]
        try await EntitlementsHarness.run(products: products) { harness in
            for product in ["-A1", "seeds"] {
                _ = try await harness.applied(
                    [F.sale(product: product, at: Date().addingTimeInterval(-120).rounded())], user: "gardener")
            }
            let answer = try await harness.report(
                "consumables", "from=\(F.name(0))&to=\(F.name(0))&group_by=product&format=csv")
            #expect(answer.status == .ok)
            let lines = ReportDocument.parseCSV(String(buffer: answer.body))
            #expect(
                lines == [
                    ["product_id", "bought", "spent", "refunded"], ["'-A1", "2", "0", "0"], ["seeds", "5", "0", "0"],
                ])
        }
    }
}

extension Date {
    /// This date in whole seconds (as stores send them).
    fileprivate func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
