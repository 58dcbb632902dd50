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

    /// The sales summary's rows per day, each row by its physical id: a day re-summed gets new rows.
    func summaryRows(_ appID: String, _ client: PostgresClient) async throws -> [String: Set<String>] {
        let rows = try await client.query(
            "SELECT day::text, ctid::text FROM entitlements.report_sales_days WHERE app_id = \(appID)",
            logger: Logger(label: "test"))
        var found: [String: Set<String>] = [:]
        for try await (day, id) in rows.decode((String, String).self) { found[day, default: []].insert(id) }
        return found
    }

    /// The days of the app's transactions changed at or above the sales summary's watermark: all a refresh may
    /// re-sum. The watermark is the oldest transaction running when the last refresh began, so while other
    /// transactions run (other tests') a fact summed up already may be at or above it and be summed up again.
    func daysAtOrAboveTheWatermark(_ appID: String, _ client: PostgresClient) async throws -> Set<String> {
        let rows = try await client.query(
            """
            SELECT DISTINCT v.day::text FROM entitlements.transactions t
            JOIN entitlements.report_rollups r ON r.app_id = t.app_id AND r.rollup = 'sales'
            CROSS JOIN LATERAL (
                VALUES (entitlements.utc_day(t.purchase_date)), (entitlements.utc_day(t.revocation_date))
            ) AS v(day)
            WHERE t.app_id = \(appID) AND t.changed_tx >= r.tx AND v.day IS NOT NULL
            """,
            logger: Logger(label: "test"))
        var days: Set<String> = []
        for try await day in rows.decode(String.self) { days.insert(day) }
        return days
    }

    /// Asks for the sales report and answers the days whose summary it re-summed, with the days it was allowed to.
    func reportResums(
        _ harness: EntitlementsHarness, _ client: PostgresClient, query: String
    ) async throws -> (resummed: Set<String>, allowed: Set<String>, report: ReportDocument) {
        let before = try await summaryRows(harness.appID, client)
        let allowed = try await daysAtOrAboveTheWatermark(harness.appID, client)
        let report = try await harness.reportDocument("sales", query)
        let after = try await summaryRows(harness.appID, client)
        let resummed = Set(Set(before.keys).union(after.keys).filter { before[$0] != after[$0] })
        return (resummed, allowed, report)
    }

    @Test("A refresh round builds every summary of the app; the report request then re-sums no day it summed")
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

                let range = "from=\(F.name(3))&to=\(F.name(1))"
                let first = try await reportResums(harness, client, query: range)
                #expect(first.report.total(currency: "USD")?["purchases"] == 2)
                #expect(first.report.total(currency: "EUR")?["purchases"] == 1)
                #expect(first.resummed.isSubset(of: first.allowed), "\(first.resummed) beyond \(first.allowed)")

                // A late purchase: the next round takes it in, and the request again re-sums nothing it need not.
                _ = try await harness.applied([F.sale(at: F.day(2))], user: "late")
                #expect(await refresher.refreshAll() == 3)
                let again = try await builtAt(harness.appID, client)
                #expect(again["sales"].map { $0 > built["sales"] ?? .distantFuture } == true)
                let later = try await reportResums(harness, client, query: range)
                #expect(later.report.total(currency: "USD")?["purchases"] == 3)
                #expect(later.resummed.isSubset(of: later.allowed), "\(later.resummed) beyond \(later.allowed)")
            }
        }
    }
}
