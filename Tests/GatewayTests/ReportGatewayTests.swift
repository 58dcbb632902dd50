import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// The reports through a live gateway: each goes to the service that owns its facts, with the caller's app alone, and
/// a purchase verified through the gateway shows in them with the storefront and price the store signed.
@Suite struct ReportGatewayTests {
    static let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))

    @Test func purchasesThroughTheGatewayShowInTheReportsOfTheirAppAlone() async throws {
        try await SignedPurchaseWorld.run { world in
            let secret = world.app.secretKey.key
            for user in ["anna", "ben"] {
                let bought = try await world.purchase(
                    user, jws: try world.signedTransaction(), bearer: world.app.publicKey.key, token: nil)
                #expect(bought.status == .ok, "\(bought.text)")
            }
            let range = "from=\(Self.today)&to=\(Self.today)&environment=sandbox"
            let sales = try await world.gateway.send(
                .get, "/v1/admin/reports/sales?\(range)&group_by=product,storefront", bearer: secret)
            #expect(sales.status == .ok, "\(sales.text)")
            #expect(try sales.violations(.get, "/v1/admin/reports/sales") == [])
            let document = try ReportDocument(sales.body.readableBytesView)
            #expect(document.rows.count == 1)
            #expect(
                document.rows.first
                    == [
                        "product_id": "pro", "store_product_id": .null, "storefront": "USA", "currency": "USD",
                        "purchases": 2, "renewals": 0, "units": 2, "revenue_milliunits": 3980, "refunds": 0,
                        "refunded_milliunits": 0, "estimated_revenue_milliunits": 0, "estimated_refunded_milliunits": 0,
                    ])
            // Production has none of the sandbox's.
            let production = try await world.gateway.send(
                .get, "/v1/admin/reports/sales?from=\(Self.today)&to=\(Self.today)", bearer: secret)
            #expect(try ReportDocument(production.body.readableBytesView).rows.isEmpty)

            let csv = try await world.gateway.send(
                .get, "/v1/admin/reports/sales?\(range)&group_by=product,storefront", bearer: secret,
                headers: [.accept: "text/csv"])
            #expect(csv.status == .ok)
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8; header=present")
            #expect(csv.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"sales-") == true)
            #expect(ReportDocument.parseCSV(csv.text) == document.csvLines)

            let usage = try await world.gateway.send(.get, "/v1/admin/reports/usage?\(range)", bearer: secret)
            #expect(try usage.violations(.get, "/v1/admin/reports/usage") == [])
            #expect(try ReportDocument(usage.body.readableBytesView).rows.first?["app_version"] == "1.0")
            let consumables = try await world.gateway.send(
                .get, "/v1/admin/reports/consumables?from=\(Self.today)&to=\(Self.today)", bearer: secret)
            #expect(try consumables.violations(.get, "/v1/admin/reports/consumables") == [])
            // The subscriptions report is the subscriptions service's: one row for the day, nothing in it.
            let subscriptions = try await world.gateway.send(
                .get, "/v1/admin/reports/subscriptions?\(range)", bearer: secret)
            #expect(subscriptions.status == .ok, "\(subscriptions.text)")
            #expect(try subscriptions.violations(.get, "/v1/admin/reports/subscriptions") == [])
            #expect(try ReportDocument(subscriptions.body.readableBytesView).rows.count == 1)

            // Another app's secret key sees its own app's figures: none.
            let other = try await world.gateway.createApp("Other")
            for name in ["sales", "usage"] {
                let theirs = try await world.gateway.send(
                    .get, "/v1/admin/reports/\(name)?\(range)", bearer: other.secretKey.key)
                #expect(theirs.status == .ok)
                #expect(try ReportDocument(theirs.body.readableBytesView).rows.isEmpty)
            }
            // Reports need a secret key; a bad range is the caller's problem.
            let publicKey = try await world.gateway.send(
                .get, "/v1/admin/reports/sales?\(range)", bearer: world.app.publicKey.key)
            #expect(publicKey.status == .forbidden)
            let backwards = try await world.gateway.send(
                .get, "/v1/admin/reports/sales?from=2026-02-01&to=2026-01-01", bearer: secret)
            #expect(backwards.status == .badRequest)
            #expect(try backwards.violations(.get, "/v1/admin/reports/sales") == [])
            #expect(
                try await world.gateway.send(.post, "/v1/admin/reports/sales", bearer: secret).status
                    == .methodNotAllowed)
        }
    }

    /// Issue 34: `app_version` is anyone's with the public key, and the usage report's CSV is opened in spreadsheets.
    @Test func anAppVersionAFormulaComesBackEscapedInTheUsageCSV() async throws {
        try await SignedPurchaseWorld.run { world in
            // A carriage return is a line break: refused with the request. Every other formula start is taken as sent.
            let sent = ReportDocument.formulas.filter { !$0.hasPrefix("\r") } + ["2.4.0"]
            for (index, version) in sent.enumerated() {
                let bought = try await world.purchase(
                    "buyer-\(index)", jws: try world.signedTransaction(), bearer: world.app.publicKey.key, token: nil,
                    appVersion: version)
                #expect(bought.status == .ok, "\(bought.text)")
            }
            let refused = try await world.purchase(
                "buyer-cr", jws: try world.signedTransaction(), bearer: world.app.publicKey.key, token: nil,
                appVersion: "\r=1+2")
            #expect(refused.status == .unprocessableContent)

            let csv = try await world.gateway.send(
                .get, "/v1/admin/reports/usage?from=\(Self.today)&to=\(Self.today)&environment=sandbox",
                bearer: world.app.secretKey.key, headers: [.accept: "text/csv"])
            #expect(csv.status == .ok)
            let lines = ReportDocument.parseCSV(csv.text)
            let versions = ReportDocument.column("app_version", of: lines) ?? []
            let expected = sent.map { $0.first.map { "=+-@\t".contains($0) } == true ? "'" + $0 : $0 }
            #expect(versions.sorted() == expected.sorted())
            #expect(versions.contains("'=HYPERLINK(\"http://x\")") && versions.contains("2.4.0"))
        }
    }
}
