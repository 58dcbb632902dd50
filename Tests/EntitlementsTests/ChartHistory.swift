import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport

/// A subscription history for the charts' tests, written to the database in bulk SQL (customers, purchases,
/// transactions, subscriptions and periods, as the apply paths leave them) and handed as the same JSON to the charts'
/// Python oracles (`Tests/Oracles/`), which compute every figure independently.
struct ChartHistory {
    /// One period of a subscription: a free trial, a paid intro offer or a full-price period (in JSON with
    /// snake-case keys, as the oracles and the seeding SQL read it).
    struct Period: Encodable {
        var customer: String
        var otid: String
        var tid: String
        var product: String
        var periodType: String
        var priceMilliunits: Int64?
        var currency: String?
        var storefront: String?
        var startsAt: Int
        var endsAt: Int
        var revokedAt: Int?
        var environment = "production"
        var store = "app_store"

    }

    /// Each product's catalog duration.
    static let durations = ["basic": "P1M", "plus": "P1M", "annual": "P1Y", "weekly": "P1W"]
    static let prices: [String: Int64] = ["basic": 4990, "plus": 9990, "annual": 39990, "weekly": 1990]

    var periods: [Period] = []

    /// One subscriber's periods, back to back from `start`: `plan` lists each period's product and kind, `gaps`
    /// puts days without a paid period before the period of that index (a lapse, then a reactivation), `refund`
    /// revokes the last period that many hours after it began, `upgradeAfterDays` moves the first paid period to
    /// `plus` that many days in (the first ends then). `customer` is the subscriber's customer (default: `name`).
    mutating func subscriber(
        _ name: String, start: Date, plan: [(product: String, type: String)], currency: String, storefront: String?,
        gaps: [Int: Int] = [:], refund: Int? = nil, upgradeAfterDays: Int? = nil, environment: String = "production",
        store: String = "app_store", customer: String? = nil
    ) {
        var at = start
        for (index, step) in plan.enumerated() {
            if let gap = gaps[index] { at = at.addingTimeInterval(Double(gap) * 86_400) }
            let end = Self.end(of: step.type == "trial" ? "P7D" : Self.durations[step.product] ?? "P1M", from: at)
            let price: Int64? =
                step.type == "trial"
                ? 0
                : step.type == "intro"
                    ? 990
                    : Self.prices[step.product].map { price in
                        currency == "USD" ? price : currency == "EUR" ? price - 500 : price - 1000
                    }
            var period = Period(
                customer: customer ?? name, otid: name, tid: "\(name)-\(index)", product: step.product,
                periodType: step.type,
                priceMilliunits: store == "play_store" ? nil : price, currency: currency, storefront: storefront,
                startsAt: Int(at.timeIntervalSince1970), endsAt: Int(end.timeIntervalSince1970),
                environment: environment, store: store)
            if index == plan.count - 1, let refund { period.revokedAt = period.startsAt + refund * 3600 }
            if step.type == "normal", index == plan.firstIndex(where: { $0.type == "normal" }),
                let upgradeAfterDays
            {
                // The period upgraded out of ends where the new one begins (as the App Store and the sandbox do).
                let upgrade = Int(at.timeIntervalSince1970) + upgradeAfterDays * 86_400
                period.endsAt = upgrade
                periods.append(period)
                let upgraded = Date(timeIntervalSince1970: Double(upgrade))
                let upgradedEnd = Self.end(of: "P1M", from: upgraded)
                periods.append(
                    Period(
                        customer: customer ?? name, otid: name, tid: "\(name)-\(index)-up", product: "plus",
                        periodType: "normal",
                        priceMilliunits: Self.prices["plus"], currency: currency, storefront: storefront,
                        startsAt: upgrade, endsAt: Int(upgradedEnd.timeIntervalSince1970), environment: environment,
                        store: store))
                at = upgradedEnd
                continue
            }
            periods.append(period)
            at = end
        }
    }

    /// The end of a period of `duration` (`P1M`, `P1Y`, `P1W`, `P7D`) that starts at `start`, in UTC calendar terms.
    static func end(of duration: String, from start: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        let count = Int(duration.dropFirst().dropLast()) ?? 1
        let component: Calendar.Component =
            switch duration.last {
            case "Y": .year
            case "W": .weekOfYear
            case "D": .day
            default: .month
            }
        return calendar.date(byAdding: component, value: count, to: start) ?? start
    }

    /// The history of the charts' tests: three currencies, trials converted and not, an upgrade, a downgrade,
    /// refunds, lapses and reactivations, a year, weeks, a month-end start, a Google Play subscription without prices,
    /// a sandbox one and a customer with two subscriptions; then 40 generated subscribers of every kind.
    static func standard() -> ChartHistory {
        var history = ChartHistory()
        let monthly = { (product: String, count: Int) in Array(repeating: (product, "normal"), count: count) }
        history.subscriber(
            "trial-kept", start: date("2025-01-05T09:00:00Z"), plan: [("plus", "trial")] + monthly("plus", 4),
            currency: "EUR", storefront: "DEU")
        history.subscriber(
            "trial-lost", start: date("2025-01-10T10:00:00Z"), plan: [("plus", "trial")], currency: "USD",
            storefront: "USA")
        history.subscriber(
            "upgrader", start: date("2025-01-03T10:00:00Z"), plan: monthly("basic", 3), currency: "USD",
            storefront: "USA", upgradeAfterDays: 17)
        history.subscriber(
            "downgrader", start: date("2025-01-12T09:00:00Z"), plan: [("plus", "normal"), ("basic", "normal")],
            currency: "EUR", storefront: "FRA")
        history.subscriber(
            "refunded-year", start: date("2025-01-08T16:00:00Z"), plan: [("annual", "normal")], currency: "GBP",
            storefront: "GBR", refund: 24 * 24)
        history.subscriber(
            "reactivated", start: date("2025-01-15T20:00:00Z"), plan: monthly("basic", 4), currency: "USD",
            storefront: "USA", gaps: [2: 20])
        history.subscriber(
            "month-end", start: date("2025-01-31T23:30:00Z"), plan: monthly("basic", 3), currency: "USD",
            storefront: "CAN")
        history.subscriber(
            "weekly", start: date("2025-02-03T07:00:00Z"), plan: monthly("weekly", 9), currency: "USD",
            storefront: "USA")
        history.subscriber(
            "intro", start: date("2025-01-18T10:00:00Z"), plan: [("plus", "intro")] + monthly("plus", 2),
            currency: "EUR", storefront: "DEU")
        history.subscriber(
            "play", start: date("2025-02-11T12:00:00Z"), plan: [("basic", "trial")] + monthly("basic", 2),
            currency: "USD", storefront: "US", store: "play_store")
        history.subscriber(
            "sandbox", start: date("2025-01-04T10:00:00Z"), plan: [("basic", "trial")] + monthly("basic", 2),
            currency: "USD", storefront: "USA", environment: "sandbox")
        history.subscriber(
            "second-subscription", start: date("2025-03-20T08:00:00Z"), plan: [("annual", "normal")],
            currency: "EUR", storefront: "FRA", customer: "downgrader")
        let products = ["basic", "plus", "annual", "weekly", "basic"]
        let currencies = ["USD", "EUR", "GBP"]
        let storefronts = ["USA", "DEU", "GBR"]
        for number in 0..<40 {
            let product = products[number % products.count]
            let trial = number % 4 == 0
            let paid = trial && number % 8 == 4 ? 0 : 1 + (number * 7) % 6
            var plan: [(product: String, type: String)] = trial ? [(product, "trial")] : []
            if number % 6 == 5 { plan.append((product, "intro")) }
            plan += monthly(product, paid)
            let start = date("2025-01-01T00:00:00Z").addingTimeInterval(
                Double((number * 37) % 110) * 86_400 + Double(number % 24) * 3_600 + 1_234)
            history.subscriber(
                "gen-\(number)", start: start, plan: plan, currency: currencies[number % 3],
                storefront: number % 9 == 8 ? nil : storefronts[number % 3],
                gaps: number % 7 == 3 && plan.count > 2 ? [plan.count - 1: 3 + number % 30] : [:],
                refund: number % 11 == 2 ? 50 : nil)
        }
        return history
    }

    static func date(_ text: String) -> Date {
        (try? Date(text, strategy: .iso8601)) ?? Date(timeIntervalSince1970: 0)
    }

    /// The periods as JSON, every id prefixed with the app's so apps never share one.
    func json(appID: String) throws -> String {
        let prefixed = periods.map { period in
            var period = period
            period.otid = "\(appID)-\(period.otid)"
            period.tid = "\(appID)-\(period.tid)"
            return period
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(prefixed), as: UTF8.self)
    }

    /// Writes the history for `appID`: a customer per subscriber (first seen at its first period's start), a purchase
    /// and a subscription per original transaction, a transaction and a period per period.
    func seed(appID: String, database: DatabaseSettings) async throws {
        let input = try json(appID: appID)
        let rows = """
            WITH x AS (
                SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(
                    customer text, otid text, tid text, product text, period_type text, price_milliunits bigint,
                    currency text, storefront text, starts_at bigint, ends_at bigint, revoked_at bigint,
                    environment text, store text)
            ), p AS (
                SELECT x.*, md5($2 || '/' || x.customer)::uuid AS customer_id, to_timestamp(x.starts_at) AS starts,
                       to_timestamp(x.ends_at) AS ends, to_timestamp(x.revoked_at) AS revoked,
                       'com.test.' || x.product AS store_product_id
                FROM x
            )
            """
        try await TestDatabase.withClient(database) { client in
            for statement in [
                """
                INSERT INTO entitlements.customers (customer_id, app_id, first_seen, last_seen)
                SELECT customer_id, $2, min(starts), max(starts) FROM p GROUP BY customer_id
                """,
                """
                INSERT INTO entitlements.purchases (store, original_transaction_id, app_id, customer_id,
                    store_product_id, product_id, product_type, environment, ownership_type, purchase_date,
                    latest_transaction_id, quantity, expires_date)
                SELECT DISTINCT ON (store, otid) store, otid, $2, customer_id, store_product_id, product,
                       'auto_renewable', environment, 'purchased', starts, tid, 1, ends
                FROM p ORDER BY store, otid, starts DESC
                """,
                """
                INSERT INTO entitlements.transactions (store, transaction_id, original_transaction_id, app_id,
                    customer_id, environment, store_product_id, quantity, purchase_date, expires_date, price_milliunits,
                    currency, storefront, revocation_date)
                SELECT store, tid, otid, $2, customer_id, environment, store_product_id, 1, starts, ends,
                       price_milliunits, currency, storefront, revoked
                FROM p
                """,
                """
                INSERT INTO subscriptions.subscriptions (store, original_transaction_id, app_id, environment,
                    product_id, store_product_id, group_key, state, period_type, started_at, expires_at,
                    period_started_at)
                SELECT DISTINCT ON (store, otid) store, otid, $2, environment, product, store_product_id, 'pro',
                       'expired', period_type, starts, ends, starts
                FROM p ORDER BY store, otid, starts DESC
                """,
                """
                INSERT INTO subscriptions.periods (store, transaction_id, original_transaction_id, app_id, product_id,
                    store_product_id, group_key, period_type, starts_at, ends_at, revoked_at, revocation_reason)
                SELECT store, tid, otid, $2, product, store_product_id, 'pro', period_type, starts, ends, revoked,
                       CASE WHEN revoked IS NOT NULL THEN 'refund' END
                FROM p
                """,
            ] {
                try await client.query(
                    PostgresQuery(
                        unsafeSQL: rows + statement, binds: try PostgresBindings(input, appID)),
                    logger: Logger(label: "chart-history"))
            }
        }
    }

    /// Runs `Tests/Oracles/<script>` on `input` (JSON on standard input) and returns its rows, each as sorted JSON.
    static func oracle(_ script: String, input: [String: Any]) throws -> [String] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Oracles/\(script)").standardized
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", path.path]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let rows = try JSONSerialization.jsonObject(with: output) as? [Any]
        else { throw HarnessError("the oracle failed: \(String(decoding: output, as: UTF8.self))") }
        return try rows.map(MRRReportTests.canonical)
    }
}
