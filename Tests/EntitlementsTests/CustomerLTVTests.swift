import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// `GET /v1/admin/customers/{app_user_id}/ltv`: on the standard chart history (``ChartHistory``, bulk SQL, three
/// currencies, a refunded year, trials, upgrades) with ECB rates loaded, every customer's realized LTV adds up to the
/// LTV chart's revenue of their cohort, in USD (each transaction at the rate of its day) and per currency as paid;
/// a refunded purchase counts as paid and refunded; unknown ids, missing rates and bad queries are refused in words.
@Suite("A customer's realized LTV")
struct CustomerLTVTests {
    static let template = "/v1/admin/customers/{app_user_id}/ltv"

    /// Gives every subscriber of `history` its name as app user id (the history writes customers without aliases).
    static func nameCustomers(_ history: ChartHistory, appID: String, database: DatabaseSettings) async throws {
        let names = Array(Set(history.periods.map(\.customer))).sorted()
        try await TestDatabase.withClient(database) { client in
            try await client.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO entitlements.aliases (app_id, app_user_id, customer_id)
                        SELECT $1, name, md5($1 || '/' || name)::uuid FROM unnest($2::text[]) name
                        """,
                    binds: try PostgresBindings(appID, names)),
                logger: Logger(label: "customer-ltv"))
        }
    }

    @Test("Every customer's LTV adds up to the LTV chart's revenue, converted and as paid")
    func addsUpToTheChart() async throws {
        try await EntitlementsHarness.run(products: CohortChartTests.products) { harness in
            // The standard history up to the end of 2025 (its yearly plans renew into later years): the chart of 2025
            // is then seen after every fact, as a customer's LTV is.
            var history = ChartHistory.standard()
            let end = Int(ChartHistory.date("2026-01-01T00:00:00Z").timeIntervalSince1970)
            history.periods.removeAll { $0.startsAt >= end }
            try await history.seed(appID: harness.appID, database: harness.database)
            try await Self.nameCustomers(history, appID: harness.appID, database: harness.database)
            let loaded = try await harness.loadRates(
                MRRReportTests.ecbDocument(RevenueChartTests.rates), type: "application/xml")
            #expect(loaded.status == .ok, "\(loaded.text)")
            var converted: [String: Int] = [:]
            var asPaid: [String: Int] = [:]
            var refunded: [String: Int] = [:]
            for name in Set(history.periods.map(\.customer)).sorted() {
                let answer = try await harness.send(.get, "/v1/admin/customers/\(name)/ltv?currency=USD")
                #expect(answer.status == .ok, "\(name): \(answer.text)")
                #expect(try answer.violations(.get, Self.template) == [], "\(name)")
                let body = try answer.json
                #expect(body["app_user_id"] as? String == name)
                let inUSD = try #require(body["converted"] as? [String: Any], "\(name)")
                let ltv = inUSD["ltv_milliunits"] as? Int ?? -1
                #expect(ltv == (inUSD["paid_milliunits"] as? Int ?? 0) - (inUSD["refunded_milliunits"] as? Int ?? 0))
                converted["USD", default: 0] += ltv
                for figures in body["currencies"] as? [[String: Any]] ?? [] {
                    let currency = figures["currency"] as? String ?? "?"
                    asPaid[currency, default: 0] += figures["ltv_milliunits"] as? Int ?? 0
                    refunded[currency, default: 0] += figures["refunded_milliunits"] as? Int ?? 0
                }
            }
            let inUSD = try await Self.rows(harness, "from=2025-01-01&to=2025-12-31&group_by=&currency=USD")
            #expect(inUSD.count == 1)
            #expect(converted["USD"] == inUSD.first?["revenue_milliunits"] as? Int)
            let byCurrency = try await Self.rows(harness, "from=2025-01-01&to=2025-12-31&group_by=")
            #expect(Set(byCurrency.compactMap { $0["currency"] as? String }) == Set(asPaid.keys))
            for row in byCurrency {
                let currency = row["currency"] as? String ?? "?"
                #expect(asPaid[currency] == row["revenue_milliunits"] as? Int, "\(currency)")
                #expect(refunded[currency] == row["refunded_milliunits"] as? Int, "\(currency)")
            }
            #expect((refunded["GBP"] ?? 0) >= 38990, "the refunded year is counted as refunded")
        }
    }

    /// The LTV chart's rows for `query`, requiring 200.
    static func rows(_ harness: EntitlementsHarness, _ query: String) async throws -> [[String: Any]] {
        let answer = try await harness.report("ltv", query)
        #expect(answer.status == .ok, "\(answer.text)")
        return try answer.json["rows"] as? [[String: Any]] ?? []
    }

    @Test("By hand: a refunded year; sandbox apart; unknown ids, missing rates and bad queries refused")
    func byHand() async throws {
        try await EntitlementsHarness.run(products: CohortChartTests.products) { harness in
            // One customer: a year in pounds bought in production and refunded 24 days later, and a month in
            // dollars in the sandbox.
            var history = ChartHistory()
            for (otid, day, product, currency, environment) in [
                ("year", "2025-01-08", "annual", "GBP", "production"),
                ("month", "2025-03-08", "basic", "USD", "sandbox"),
            ] {
                history.subscriber(
                    otid, start: ChartHistory.date("\(day)T16:00:00Z"), plan: [(product, "normal")], currency: currency,
                    storefront: "GBR", refund: environment == "production" ? 24 * 24 : nil, environment: environment,
                    customer: "year")
            }
            try await history.seed(appID: harness.appID, database: harness.database)
            try await Self.nameCustomers(history, appID: harness.appID, database: harness.database)

            let answer = try await harness.send(.get, "/v1/admin/customers/year/ltv")
            #expect(answer.status == .ok, "\(answer.text)")
            #expect(answer.headers[.cacheControl] == "no-store")
            #expect(try answer.violations(.get, Self.template) == [])
            let body = try answer.json
            #expect(body["environment"] as? String == "production")
            #expect(body["first_purchase_date"] as? String == "2025-01-08T16:00:00Z")
            #expect(body["converted"] is NSNull)
            let currencies = try #require(body["currencies"] as? [[String: Any]])
            #expect(currencies.count == 1)
            #expect(currencies.first?["currency"] as? String == "GBP")
            #expect(currencies.first?["paid_milliunits"] as? Int == 38990)
            #expect(currencies.first?["refunded_milliunits"] as? Int == 38990)
            #expect(currencies.first?["refunds"] as? Int == 1)
            #expect(currencies.first?["ltv_milliunits"] as? Int == 0)

            let sandbox = try await harness.send(.get, "/v1/admin/customers/year/ltv?environment=sandbox")
            let sandboxFigures = try #require((try sandbox.json["currencies"] as? [[String: Any]])?.first)
            #expect(sandboxFigures["currency"] as? String == "USD")
            #expect(sandboxFigures["ltv_milliunits"] as? Int == 4990)

            let missing = try await harness.send(.get, "/v1/admin/customers/year/ltv?currency=JPY")
            #expect(missing.status == .unprocessableContent)
            #expect(missing.problemCode == "exchange_rate_missing")
            #expect(try missing.violations(.get, Self.template) == [])
            let unknown = try await harness.send(.get, "/v1/admin/customers/nobody/ltv")
            #expect(unknown.status == .notFound)
            #expect(unknown.problemCode == "customer_not_found")
            for bad in ["environment=moon", "currency=usd", "currency=USD&currency=EUR"] {
                let refused = try await harness.send(.get, "/v1/admin/customers/year/ltv?\(bad)")
                #expect(refused.status == .badRequest, "\(bad)")
                #expect(try refused.violations(.get, Self.template) == [], "\(bad)")
            }
            let withPublicKey = try await harness.send(.get, "/v1/admin/customers/year/ltv", kind: .public)
            #expect(withPublicKey.status == .forbidden)
        }
    }
}
