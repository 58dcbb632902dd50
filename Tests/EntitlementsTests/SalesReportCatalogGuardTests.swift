import Foundation
import Logging
import ShopkeeperTestSupport
import Testing

/// The sales report during a rolling deploy: the entitlements service may run before the catalog has migrated, and
/// its Play price estimates (`catalog.store_price_history_v1`) must then be missing, not an error.
@Suite("Sales report before the catalog migrates")
struct SalesReportCatalogGuardTests {
    typealias F = ReportFixtures

    @Test("Without catalog.store_price_history_v1 the sales report answers, Play sales unpriced")
    func answersWithoutThePriceHistory() async throws {
        // A database of its own: the view is dropped there only.
        try await TestDatabase.withFreshDatabase { database in
            try await EntitlementsHarness.run(environment: ["DATABASE_URL": database.url]) { harness in
                try await TestDatabase.withClient(database) { client in
                    try await client.query(
                        "DROP VIEW catalog.store_price_history_v1", logger: Logger(label: "catalog-guard-test"))
                }
                let day = F.day(3)
                let google = F.sale(
                    at: day.addingTimeInterval(3_600), price: nil, currency: nil, storefront: "US", store: .playStore)
                let apple = F.sale(at: day.addingTimeInterval(7_200))
                _ = try await harness.applied([google], user: "play-buyer")
                _ = try await harness.applied([apple], user: "apple-buyer")

                let report = try await harness.reportDocument("sales", "from=\(F.name(3))&to=\(F.name(0))")
                let rows = report.rows.map { row in
                    ["currency", "purchases", "revenue_milliunits", "estimated_revenue_milliunits"].map {
                        row[$0] ?? nil
                    }
                }
                #expect(rows.contains([nil, 1, nil, nil]), "the Play sale is counted, unpriced: \(rows)")
                #expect(rows.contains(["USD", 1, 1990, 0]), "the App Store sale keeps its price: \(rows)")
            }
        }
    }
}
