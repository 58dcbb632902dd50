import Logging
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
            try await Self.requireRates(
                MRRReport.missingRate, appID: appID, request: request, currency: currency, on: connection,
                logger: logger)
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

    /// With a reporting `currency`, runs `sql` (binds `$1`...`$5`: app, range, environment, currency), which selects
    /// the currency and day of the first fact no loaded rate converts, and throws 422
    /// ``EntitlementsError/exchangeRateMissing`` naming them when there is one.
    static func requireRates(
        _ sql: String, appID: String, request: ReportRequest, currency: String?, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        guard let currency else { return }
        let missing = try await connection.checkedQuery(
            PostgresQuery(
                unsafeSQL: sql,
                binds: try PostgresBindings(
                    appID, request.from.description, request.to.description,
                    request.environment?.rawValue ?? "production", currency)),
            logger: logger)
        for try await (missingCurrency, day) in missing.decode((String, String).self) {
            throw EntitlementsError.exchangeRateMissing(
                currency: missingCurrency, reportingCurrency: currency, day: day)
        }
    }
}
