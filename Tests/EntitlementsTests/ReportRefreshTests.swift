import Foundation
import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperReports
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// The background refresh of the report summaries (`SHOPKEEPER_REPORT_REFRESH_SECONDS`): it finds the apps with facts
/// and builds their summaries, so a report request afterwards has nothing left to build.
@Suite("Report summaries refreshed in the background")
struct ReportRefreshTests {
    typealias F = ReportFixtures

    /// When each of the app's summaries was last built.
    func builtAt(_ appID: String, _ client: PostgresClient) async throws -> [String: Date] {
        let rows = try await client.query(
            "SELECT rollup, built_at FROM entitlements.report_rollups WHERE app_id = \(appID)",
            logger: Logger(label: "test"))
        var found: [String: Date] = [:]
        for try await (rollup, built) in rows.decode((String, Date).self) { found[rollup] = built }
        return found
    }

    @Test("A refresh round builds every summary of the app; the report request then builds nothing")
    func aRoundBuildsTheSummaries() async throws {
        try await EntitlementsHarness.run { harness in
            let sales = [
                F.sale(at: F.day(3)), F.sale(at: F.day(3).addingTimeInterval(60), price: 1790, currency: "EUR"),
                F.sale(product: "seeds", at: F.day(1), price: 2970, quantity: 3),
            ]
            for (index, sale) in sales.enumerated() { _ = try await harness.applied([sale], user: "early-\(index)") }
            try await TestDatabase.withClient(harness.database) { client in
                let logger = Logger(label: "refresh-test")
                // The apps with facts are found from the transactions' index.
                var apps: [String] = []
                let listed = try await client.query(
                    PostgresQuery(
                        unsafeSQL: ReportSummaryRefresher.distinctApps(in: "entitlements.transactions")),
                    logger: logger)
                for try await app in listed.decode(String.self) { apps.append(app) }
                #expect(apps.contains(harness.appID))
                #expect(apps == apps.sorted() && Set(apps).count == apps.count)

                #expect(try await builtAt(harness.appID, client).isEmpty)
                let refresher = ReportSummaryRefresher(
                    rollups: [ReportRollups.sales, ReportRollups.usage, ReportRollups.consumables],
                    apps: "SELECT '\(harness.appID)'::text", interval: .seconds(300), client: client,
                    startup: StartupGate(), logger: logger)
                #expect(await refresher.refreshAll() == 3)
                let built = try await builtAt(harness.appID, client)
                #expect(Set(built.keys) == ["sales", "usage", "consumables"])

                let report = try await harness.reportDocument("sales", "from=\(F.name(3))&to=\(F.name(1))")
                #expect(report.total(currency: "USD")?["purchases"] == 2)
                #expect(report.total(currency: "EUR")?["purchases"] == 1)
                #expect(try await builtAt(harness.appID, client) == built, "the request rebuilt a summary")

                // A late purchase: the next round takes it in, and only the days it changed.
                _ = try await harness.applied([F.sale(at: F.day(2))], user: "late")
                #expect(await refresher.refreshAll() == 3)
                let again = try await builtAt(harness.appID, client)
                #expect(again["sales"].map { $0 > built["sales"] ?? .distantFuture } == true)
                let later = try await harness.reportDocument("sales", "from=\(F.name(3))&to=\(F.name(1))")
                #expect(later.total(currency: "USD")?["purchases"] == 3)
                #expect(try await builtAt(harness.appID, client) == again, "the request rebuilt a summary")
            }
        }
    }
}
