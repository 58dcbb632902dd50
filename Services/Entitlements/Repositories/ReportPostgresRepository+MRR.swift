import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperReports

extension ReportPostgresRepository {
    /// The MRR report (``MRRReport``): first checks that every period of the range converts (else 422
    /// ``EntitlementsError/exchangeRateMissing``), then adds up the figures, in one transaction.
    func mrr(appID: String, request: ReportRequest, currency: String?) async throws -> ReportTable {
        let environment: String = request.environment?.rawValue ?? "production"
        let from = request.from.description
        let to = request.to.description
        return try await ReportQuery.withConnection(client: client, logger: logger) { connection in
            if let currency {
                let missing = try await connection.checkedQuery(
                    PostgresQuery(
                        unsafeSQL: MRRReport.missingRate,
                        binds: try PostgresBindings(appID, from, to, environment, currency)),
                    logger: logger)
                for try await (missingCurrency, day) in missing.decode((String, String).self) {
                    throw EntitlementsError.exchangeRateMissing(
                        currency: missingCurrency, reportingCurrency: currency, day: day)
                }
            }
            let query = PostgresQuery(
                unsafeSQL: MRRReport.figures,
                binds: try PostgresBindings(
                    appID, from, to, environment, currency, request.groups(by: "store"),
                    request.groups(by: "product"), request.groups(by: "storefront")))
            return try await ReportQuery.table(
                report: "mrr", request: request,
                columns: [
                    (ReportColumn("day", .dimension), true),
                    (ReportColumn("product_id", .dimension), request.groups(by: "product")),
                    (ReportColumn("store", .dimension), request.groups(by: "store")),
                    (ReportColumn("storefront", .dimension), request.groups(by: "storefront")),
                    (ReportColumn("currency", .dimension), true),
                    (ReportColumn("mrr_milliunits", .other), true),
                    (ReportColumn("arr_milliunits", .other), true),
                    (ReportColumn("active_subscriptions", .other), true),
                    (ReportColumn("new_milliunits", .sum), true),
                    (ReportColumn("expansion_milliunits", .sum), true),
                    (ReportColumn("contraction_milliunits", .sum), true),
                    (ReportColumn("churn_milliunits", .sum), true),
                    (ReportColumn("reactivation_milliunits", .sum), true),
                    (ReportColumn("rates", .note), currency != nil),
                ],
                query: query, totalsBy: ["currency"], on: connection, logger: logger)
        }
    }
}
