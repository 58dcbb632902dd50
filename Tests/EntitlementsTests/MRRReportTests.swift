import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// `GET /v1/admin/reports/mrr`: a seeded history (several currencies, an upgrade, a downgrade, a refund, trials, a
/// paid intro offer, a reactivation, a weekly plan, a sandbox purchase) applied through both services as the verifier
/// does, whose MRR and movements `Tests/Oracles/mrr_movements.py` computes independently; the API matches to the
/// milliunit, converted at the loaded rate of each period's day.
@Suite("MRR report")
struct MRRReportTests {
    static let products: [Product] = [
        product("basic", duration: "P1M"), product("plus", duration: "P1M"), product("annual", duration: "P1Y"),
        product("weekly", duration: "P1W"),
    ]

    /// ECB rates (EUR base) of five days; the days between use the latest before them.
    static let rates: [(day: String, usd: String, gbp: String)] = [
        ("2025-01-02", "1.0350", "0.82920"), ("2025-01-10", "1.0305", "0.83610"), ("2025-01-24", "1.0472", "0.84360"),
        ("2025-02-03", "1.0245", "0.83170"), ("2025-02-12", "1.0371", "0.83380"),
    ]

    @Test("MRR and its movements per day equal the oracle's, in USD and in each currency as paid")
    func matchesTheOracle() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            try await Self.seed(harness)
            let loaded = try await harness.loadRates(Self.ecbDocument(), type: "application/xml")
            #expect(loaded.status == .ok, "\(loaded.text)")
            let range = "from=2025-01-01&to=2025-02-28"

            let inUSD = try await harness.report("mrr", "\(range)&currency=USD")
            #expect(inUSD.status == .ok, "\(inUSD.text)")
            #expect(try inUSD.violations(.get, "/v1/admin/reports/mrr") == [])
            let expected = try Self.oracle(currency: "USD")
            #expect(try Self.rows(inUSD) == expected)
            // By hand, one day and storefront: B's first paid month in Germany, 8.99 EUR at the rate of 10 January
            // (the 12th has none); each row lists the rates of its own subscriptions only.
            let german = try #require(
                try await harness.report("mrr", "from=2025-01-12&to=2025-01-12&currency=USD&group_by=day,storefront")
                    .json["rows"] as? [[String: Any]]
            ).first { $0["storefront"] as? String == "DEU" }
            #expect(german?["new_milliunits"] as? Int == 9264)
            #expect(german?["mrr_milliunits"] as? Int == 9264)
            #expect(german?["rates"] as? String == "USD/EUR=1.0305@2025-01-10")

            let asPaid = try await harness.report("mrr", range)
            #expect(try Self.rows(asPaid) == (try Self.oracle(currency: nil)))
            #expect(try asPaid.violations(.get, "/v1/admin/reports/mrr") == [])

            // The CSV holds the same rows.
            let csv = try await harness.report("mrr", "\(range)&currency=USD&format=csv")
            let lines = csv.text.split(separator: "\r\n")
            #expect(
                lines.first
                    == """
                    day,currency,mrr_milliunits,arr_milliunits,active_subscriptions,new_milliunits,expansion_milliunits,\
                    contraction_milliunits,churn_milliunits,reactivation_milliunits,rates
                    """)
            #expect(lines.count == expected.count + 1)
        }
    }

    @Test("By product an upgrade is churn of one and new of the other; a rate missing is a 422 naming it")
    func groupingAndMissingRates() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            try await Self.seed(harness)
            let total = try #require(
                try await harness.report("mrr", "from=2025-01-20&to=2025-01-20").json["rows"] as? [[String: Any]])
            let usd = try #require(total.first { $0["currency"] as? String == "USD" })
            #expect(usd["expansion_milliunits"] as? Int == 5000)
            let byProduct = try #require(
                try await harness.report("mrr", "from=2025-01-20&to=2025-01-20&group_by=day,product").json["rows"]
                    as? [[String: Any]])
            let basic = byProduct.first { $0["currency"] as? String == "USD" && $0["product_id"] as? String == "basic" }
            let plus = byProduct.first { $0["currency"] as? String == "USD" && $0["product_id"] as? String == "plus" }
            #expect(basic?["churn_milliunits"] as? Int == -4990)
            #expect(plus?["new_milliunits"] as? Int == 9990)
            let sum = byProduct.filter { $0["currency"] as? String == "USD" }.compactMap {
                $0["mrr_milliunits"] as? Int
            }
            #expect(sum.reduce(0, +) == usd["mrr_milliunits"] as? Int)

            // No rates loaded: converting fails on the first period of the range, naming its currency and day.
            let missing = try await harness.report("mrr", "from=2025-01-01&to=2025-01-31&currency=JPY")
            #expect(missing.status == .unprocessableContent)
            #expect(missing.problemCode == "exchange_rate_missing")
            #expect(try missing.violations(.get, "/v1/admin/reports/mrr") == [])
            let detail = try missing.json["detail"] as? String ?? ""
            #expect(detail.contains("USD") && detail.contains("JPY") && detail.contains("2024-12-01"), "\(detail)")
            let unknown = try await harness.report("mrr", "from=2025-01-01&to=2025-01-31&currency=usd")
            #expect(unknown.status == .badRequest)
            let noDay = try await harness.report("mrr", "from=2025-01-01&to=2025-01-31&group_by=product")
            #expect(noDay.status == .badRequest)
        }
    }

    // MARK: - The history

    /// One period as the store reports it, and as the oracle reads it.
    struct Period {
        var user: String
        var otid: String
        var product: String
        var price: Int64
        var currency: String
        var storefront: String
        var starts: String
        var ends: String
        var revoked: String? = nil
        var offer: StoreOffer? = nil
        var environment: StoreEnvironment = .production

        var transaction: StoreTransaction {
            StoreTransaction(
                store: .appStore, environment: environment, transactionID: "\(otid)-\(starts)",
                originalTransactionID: otid, storeProductID: "com.test.\(product)", type: .autoRenewable, quantity: 1,
                purchaseDate: MRRReportTests.date(starts), expiresDate: MRRReportTests.date(ends),
                revocationDate: revoked.map(MRRReportTests.date), revocationReason: revoked == nil ? nil : .other,
                offer: offer, priceMilliunits: price, currency: currency, storefront: storefront)
        }

        var oracle: [String: Any] {
            [
                "store": "app_store", "otid": otid, "product": product, "price_milliunits": price,
                "currency": currency, "starts_at": Int(MRRReportTests.date(starts).timeIntervalSince1970),
                "ends_at": Int(MRRReportTests.date(ends).timeIntervalSince1970),
                "revoked_at": revoked.map { Int(MRRReportTests.date($0).timeIntervalSince1970) } ?? NSNull(),
                "trial": offer?.discountType == "free_trial", "environment": environment.rawValue,
            ]
        }
    }

    static let trial = StoreOffer(type: "introductory", discountType: "free_trial")
    static let intro = StoreOffer(type: "introductory", discountType: "pay_as_you_go")

    /// Each subscriber's periods, in order.
    static let history: [[Period]] = [
        // A: basic, upgraded to plus on 20 January (Apple revokes the basic period then), renewed.
        [
            Period(
                user: "a", otid: "a", product: "basic", price: 4990, currency: "USD", storefront: "USA",
                starts: "2025-01-03T10:00:00Z", ends: "2025-02-03T10:00:00Z", revoked: "2025-01-20T12:00:00Z"),
            Period(
                user: "a", otid: "a", product: "plus", price: 9990, currency: "USD", storefront: "USA",
                starts: "2025-01-20T12:00:00Z", ends: "2025-02-20T12:00:00Z"),
            Period(
                user: "a", otid: "a", product: "plus", price: 9990, currency: "USD", storefront: "USA",
                starts: "2025-02-20T12:00:00Z", ends: "2025-03-20T12:00:00Z"),
        ],
        // B: a free trial of plus, converted, downgraded to basic at the renewal.
        [
            Period(
                user: "b", otid: "b", product: "plus", price: 0, currency: "EUR", storefront: "DEU",
                starts: "2025-01-05T09:00:00Z", ends: "2025-01-12T09:00:00Z", offer: trial),
            Period(
                user: "b", otid: "b", product: "plus", price: 8990, currency: "EUR", storefront: "DEU",
                starts: "2025-01-12T09:00:00Z", ends: "2025-02-12T09:00:00Z"),
            Period(
                user: "b", otid: "b", product: "basic", price: 4490, currency: "EUR", storefront: "DEU",
                starts: "2025-02-12T09:00:00Z", ends: "2025-03-12T09:00:00Z"),
        ],
        // C: a year in pounds, refunded on 1 February.
        [
            Period(
                user: "c", otid: "c", product: "annual", price: 39990, currency: "GBP", storefront: "GBR",
                starts: "2025-01-08T16:00:00Z", ends: "2026-01-08T16:00:00Z", revoked: "2025-02-01T15:00:00Z")
        ],
        // D: lapsed on 1 January, back on 15 January (a reactivation), lapsed again on 15 February.
        [
            Period(
                user: "d", otid: "d", product: "basic", price: 4990, currency: "USD", storefront: "USA",
                starts: "2024-12-01T08:00:00Z", ends: "2025-01-01T08:00:00Z"),
            Period(
                user: "d", otid: "d", product: "basic", price: 4990, currency: "USD", storefront: "USA",
                starts: "2025-01-15T20:00:00Z", ends: "2025-02-15T20:00:00Z"),
        ],
        // E: one month in euros, then nothing (a grace period or billing retry has no paid period).
        [
            Period(
                user: "e", otid: "e", product: "basic", price: 4490, currency: "EUR", storefront: "FRA",
                starts: "2025-01-25T11:00:00Z", ends: "2025-02-25T11:00:00Z")
        ],
        // F: a trial never converted.
        [
            Period(
                user: "f", otid: "f", product: "plus", price: 0, currency: "USD", storefront: "USA",
                starts: "2025-01-10T10:00:00Z", ends: "2025-01-17T10:00:00Z", offer: trial)
        ],
        // G: two weeks of a weekly plan.
        [
            Period(
                user: "g", otid: "g", product: "weekly", price: 1990, currency: "USD", storefront: "USA",
                starts: "2025-02-03T07:00:00Z", ends: "2025-02-10T07:00:00Z"),
            Period(
                user: "g", otid: "g", product: "weekly", price: 1990, currency: "USD", storefront: "USA",
                starts: "2025-02-10T07:00:00Z", ends: "2025-02-17T07:00:00Z"),
        ],
        // H: a paid intro month, then the full price (an expansion).
        [
            Period(
                user: "h", otid: "h", product: "plus", price: 1990, currency: "EUR", storefront: "DEU",
                starts: "2025-01-18T10:00:00Z", ends: "2025-02-18T10:00:00Z", offer: intro),
            Period(
                user: "h", otid: "h", product: "plus", price: 8990, currency: "EUR", storefront: "DEU",
                starts: "2025-02-18T10:00:00Z", ends: "2025-03-18T10:00:00Z"),
        ],
        // S: a sandbox purchase, never in production's figures.
        [
            Period(
                user: "s", otid: "s", product: "basic", price: 4990, currency: "USD", storefront: "USA",
                starts: "2025-01-04T10:00:00Z", ends: "2025-02-04T10:00:00Z", environment: .sandbox)
        ],
    ]

    /// Applies every subscriber's periods as the verifier does: the subscriptions service gets the facts, then
    /// entitlements the purchase. Subscribers get ids of this app (`otid` is prefixed so apps never share one).
    static func seed(_ harness: EntitlementsHarness) async throws {
        for periods in history {
            let transactions = periods.map { period in
                var transaction = period.transaction
                transaction.transactionID = "\(harness.appID)-\(transaction.transactionID)"
                transaction.originalTransactionID = "\(harness.appID)-\(transaction.originalTransactionID)"
                return transaction
            }
            let path = "/internal/v1/apply"
            let facts = try TestJSON.encode(SubscriptionApplyRequest(source: .purchase, transactions: transactions))
            let applied = try await harness.subscriptions.execute(
                uri: path, method: .post, headers: .signed(.post, path, appID: harness.appID, body: facts),
                body: ByteBuffer(bytes: facts))
            guard applied.status == .ok else {
                throw HarnessError("subscriptions apply answered \(applied.status): \(String(buffer: applied.body))")
            }
            _ = try await harness.applied(transactions, user: periods[0].user)
        }
    }

    /// The ECB document of `rates` (by default ``rates``).
    static func ecbDocument(_ rates: [(day: String, usd: String, gbp: String)] = rates) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" \
            xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
            <gesmes:subject>Reference rates</gesmes:subject>
            <Cube>

            """
        for rate in rates {
            text += "<Cube time='\(rate.day)'>\n<Cube currency='USD' rate='\(rate.usd)'/>\n"
            text += "<Cube currency='GBP' rate='\(rate.gbp)'/>\n</Cube>\n"
        }
        return text + "</Cube>\n</gesmes:Envelope>\n"
    }

    /// What the oracle expects of 2025-01-01...2025-02-28, each row as sorted JSON.
    static func oracle(currency: String?) throws -> [String] {
        var input: [String: Any] = [
            "from": "2025-01-01", "to": "2025-02-28", "base": "EUR",
            "durations": ["basic": "P1M", "plus": "P1M", "annual": "P1Y", "weekly": "P1W"],
            "rates": rates.flatMap { rate in
                [
                    ["day": rate.day, "currency": "USD", "rate": rate.usd],
                    ["day": rate.day, "currency": "GBP", "rate": rate.gbp],
                ]
            },
            "periods": history.flatMap { $0.map(\.oracle) },
        ]
        if let currency { input["currency"] = currency }
        return try ChartHistory.oracle("mrr_movements.py", input: input)
    }

    /// The answer's rows, each as sorted JSON.
    static func rows(_ answer: any HTTPAnswer) throws -> [String] {
        guard answer.status == .ok, let rows = try answer.json["rows"] as? [Any] else {
            throw HarnessError("the report answered \(answer.status): \(answer.text)")
        }
        return try rows.map(canonical)
    }

    static func canonical(_ row: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: row, options: [.sortedKeys]), as: UTF8.self)
    }

    static func date(_ text: String) -> Date {
        (try? Date(text, strategy: .iso8601)) ?? Date(timeIntervalSince1970: 0)
    }

    static func product(_ id: String, duration: String) -> Product {
        Product(
            productID: id, type: .autoRenewable, storeProductIDs: [.appStore: "com.test.\(id)", .playStore: id],
            entitlements: ["pro"], duration: ISODuration(duration),
            localizations: ["en": ProductLocalization(name: id, description: id)], group: "pro")
    }
}
