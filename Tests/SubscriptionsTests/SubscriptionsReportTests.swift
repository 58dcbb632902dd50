import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperReports
import ShopkeeperTestSupport
import Testing

/// `GET /v1/admin/reports/subscriptions`: per UTC day, what happened to the app's subscriptions and how many were in
/// each state at the day's end, from the periods the store facts recorded.
@Suite("Subscriptions report")
struct SubscriptionsReportTests {
    typealias F = SubscriptionFixtures

    /// Midnight UTC `daysAgo` days before today, plus `hours`.
    static func at(_ daysAgo: Int, _ hours: Double = 0) -> Date {
        let midnight = (Date().timeIntervalSince1970 / 86_400).rounded(.down) * 86_400
        return Date(timeIntervalSince1970: midnight - Double(daysAgo) * 86_400 + hours * 3600)
    }

    static func name(_ daysAgo: Int) -> String {
        ReportDay(containing: at(daysAgo)).description
    }

    /// A production period of `product` from `start` to `end`.
    static func period(
        _ start: Date, _ end: Date, product: String = "pro_monthly", original: String? = nil, trial: Bool = false,
        revoked: Date? = nil
    ) -> StoreTransaction {
        var transaction = F.transaction(
            product: product, original: original, start: start, end: end,
            offer: trial ? StoreOffer(type: "introductory", discountType: "free_trial") : nil, revoked: revoked)
        transaction.environment = .production
        return transaction
    }

    func report(_ harness: SubscriptionsHarness, _ query: String, accept: String? = nil) async throws
        -> TestResponse
    {
        let path = "/v1/admin/reports/subscriptions?\(query)"
        var headers = HTTPFields.signed(.get, path, appID: harness.appID, kind: .secret)
        if let accept { headers[.accept] = accept }
        return try await harness.subscriptions.execute(uri: path, method: .get, headers: headers, body: nil)
    }

    func document(_ harness: SubscriptionsHarness, _ query: String) async throws -> ReportDocument {
        let answer = try await report(harness, query)
        guard answer.status == .ok else { throw HarnessFailure("report answered \(answer.status): \(answer.text)") }
        return try ReportDocument(answer.body.readableBytesView)
    }

    /// Ten days ago (D) to today: A trials, converts, renews and lapses; B lapses and comes back; C is refunded; G is
    /// in its grace period now and R in billing retry; E starts a trial today.
    @Test("Trials, conversions, renewals, churn and the states at each day's end")
    func dayByDay() async throws {
        try await SubscriptionsHarness.run { harness in
            let a1 = Self.period(Self.at(10, 10), Self.at(7, 10), trial: true)
            let a2 = Self.period(Self.at(7, 10), Self.at(4, 10), original: a1.transactionID)
            let a3 = Self.period(Self.at(4, 10), Self.at(1, 10), original: a1.transactionID)
            let b1 = Self.period(Self.at(9, 12), Self.at(6, 12))
            let b2 = Self.period(Self.at(3, 8), Self.at(-30), original: b1.transactionID)
            let c1 = Self.period(Self.at(8), Self.at(5), product: "pro_yearly", revoked: Self.at(7, 12))
            let g1 = Self.period(Self.at(5), Self.at(2), product: "pro_yearly")
            let r1 = Self.period(Self.at(6), Self.at(2, 12))
            let e1 = Self.period(Date().addingTimeInterval(-60), Self.at(-5), trial: true)
            let subscriptions = [("a", [a1, a2, a3]), ("b", [b1, b2]), ("c", [c1]), ("e", [e1])]
            for (user, periods) in subscriptions { _ = try await harness.apply(periods, user: user) }
            let now = Date()
            _ = try await harness.apply(
                [g1],
                renewals: [
                    SubscriptionRenewalFacts(
                        store: .appStore, originalTransactionID: g1.originalTransactionID, observedAt: now,
                        willRenew: true, gracePeriodExpiresDate: now.addingTimeInterval(86_400), isInBillingRetry: true)
                ], user: "g")
            _ = try await harness.apply(
                [r1],
                renewals: [
                    SubscriptionRenewalFacts(
                        store: .appStore, originalTransactionID: r1.originalTransactionID, observedAt: now,
                        willRenew: true, isInBillingRetry: true, periodEnded: true)
                ], user: "r")

            let report = try await document(harness, "from=\(Self.name(10))&to=\(Self.name(0))")
            #expect(report.groupBy == ["day"])
            #expect(
                report.columns == [
                    "day", "new_subscriptions", "trials_started", "trials_converted", "app_trials_started",
                    "app_trials_converted", "renewals", "reactivations", "churned", "trial", "active", "grace_period",
                    "billing_retry", "expired",
                ])
            // new, trials started, converted, app trials started, converted, renewals, reactivations, churned;
            // then at the day's end: trial, active, grace period, billing retry, expired.
            let expected: [[Int64]] = [
                [1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
                [1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0],
                [1, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0],
                [0, 0, 1, 0, 0, 0, 0, 1, 0, 2, 0, 0, 1],
                [1, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 2],
                [1, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 2],
                [0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 2],
                [0, 0, 0, 0, 0, 0, 1, 0, 0, 4, 0, 0, 1],
                [0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 1, 1, 1],
                [0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 2],
                [1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2],
            ]
            #expect(report.rows.map { $0["day"] } == (0...10).reversed().map { .text(Self.name($0)) })
            #expect(Self.figures(report) == expected)
            #expect(
                report.total()
                    == [
                        "new_subscriptions": 6, "trials_started": 2, "trials_converted": 1, "app_trials_started": 0,
                        "app_trials_converted": 0, "renewals": 1, "reactivations": 1, "churned": 5,
                    ])

            // A range that starts later carries the states over from the days before it.
            let later = try await document(harness, "from=\(Self.name(5))&to=\(Self.name(0))")
            #expect(Self.figures(later) == Array(expected.suffix(6)))

            // Per product: on D+7 the monthly plan has A, R and B in force, the yearly one G.
            let perProduct = try await document(harness, "from=\(Self.name(3))&to=\(Self.name(3))&group_by=day,product")
            #expect(
                perProduct.rows.map { [$0["product_id"], $0["active"]] } == [["pro_monthly", 3], ["pro_yearly", 1]])

            // A's renewal arrives late: A did not lapse yesterday, it renewed.
            let a4 = Self.period(Self.at(1, 10), Self.at(-2), original: a1.transactionID)
            _ = try await harness.apply([a4], user: "a")
            let renewed = try await document(harness, "from=\(Self.name(10))&to=\(Self.name(0))")
            var updated = expected
            updated[9] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1, 1]
            updated[10] = [1, 1, 0, 0, 0, 0, 0, 0, 1, 2, 1, 1, 1]
            #expect(Self.figures(renewed) == updated)
        }
    }

    @Test("App trials started and converted (the app's own trial, then a purchase in its group)")
    func appTrials() async throws {
        try await SubscriptionsHarness.run { harness in
            for (user, device) in [("dora", "phone"), ("emil", "tablet")] {
                let started = try await harness.send(
                    harness.entitlements, .post, "/v1/customers/\(user)/trial", kind: .public,
                    json: try TestJSON.encode(TrialStartRequest(deviceID: device)))
                #expect(started.status == .created)
            }
            let yearly = Self.period(
                Date().addingTimeInterval(2), Date().addingTimeInterval(86_400), product: "pro_yearly")
            _ = try await harness.apply([yearly], user: "dora", device: "phone")
            let report = try await document(harness, "from=\(Self.name(1))&to=\(Self.name(0))&group_by=day,product")
            let today = report.rows(where: "day", is: .text(Self.name(0)))
            #expect(today.first { $0["product_id"] == "pro_monthly" }?["app_trials_started"] == 2)
            #expect(today.first { $0["product_id"] == "pro_yearly" }?["app_trials_converted"] == 1)
            #expect(report.total()?["app_trials_started"] == 2)
            #expect(report.total()?["app_trials_converted"] == 1)
        }
    }

    @Test("CSV holds the JSON's rows; a grouping without the day, a bad range or a public key are refused")
    func csvAndRefusals() async throws {
        try await SubscriptionsHarness.run { harness in
            _ = try await harness.apply([Self.period(Self.at(2), Self.at(-20))], user: "a")
            let query = "from=\(Self.name(3))&to=\(Self.name(0))"
            let json = try await document(harness, query)
            #expect(json.rows.count == 4)
            let csv = try await report(harness, query, accept: "text/csv")
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            #expect(ReportDocument.parseCSV(String(buffer: csv.body)) == json.csvLines)
            for bad in ["\(query)&group_by=product", "from=\(Self.name(0))&to=\(Self.name(3))", "from=x&to=y"] {
                let answer = try await report(harness, bad)
                #expect(answer.status == .badRequest, "\(bad)")
                #expect(answer.problemCode == "invalid_query")
            }
            let path = "/v1/admin/reports/subscriptions?\(query)"
            let public_ = try await harness.subscriptions.execute(
                uri: path, method: .get, headers: .signed(.get, path, appID: harness.appID, kind: .public), body: nil)
            #expect(public_.status == .forbidden)
            // Days after today have no row.
            let ahead = try await document(harness, "from=\(Self.name(1))&to=\(Self.name(-5))")
            #expect(ahead.rows.count == 2)
        }
    }

    @Test("CSV: a product id a spreadsheet would run as a formula comes back escaped, an ordinary one as it is")
    func csvEscapesFormulas() async throws {
        // The catalog's product ids may start with `-`, the one formula character it allows (`-A1` negates a cell).
        let products = F.products + [F.product("-A1", type: .autoRenewable, group: "minus")]
        try await SubscriptionsHarness.run(products: products) { harness in
            for product in ["-A1", "pro_monthly"] {
                _ = try await harness.apply([Self.period(Self.at(0), Self.at(-20), product: product)], user: "a")
            }
            let query = "from=\(Self.name(0))&to=\(Self.name(0))&group_by=day,product"
            let csv = try await report(harness, query, accept: "text/csv")
            #expect(csv.status == .ok)
            let lines = ReportDocument.parseCSV(String(buffer: csv.body))
            #expect(ReportDocument.column("product_id", of: lines)?.sorted() == ["'-A1", "pro_monthly"])
            #expect(ReportDocument.column("new_subscriptions", of: lines) == ["1", "1"])
            #expect(lines == (try await document(harness, query)).csvLines)
        }
    }

    /// Each row's figures after the day, in column order.
    static func figures(_ report: ReportDocument) -> [[Int64]] {
        report.rows.map { row in
            report.columns.dropFirst().compactMap { column in
                if case .integer(let value) = row[column] { return value }
                return nil
            }
        }
    }
}
