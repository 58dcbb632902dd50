import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP

/// How every catalog write runs: in one transaction that first bumps (and so locks) the app's revision, so writes of
/// one app run one after another and readers see each change as one revision; with SQL's refusals mapped to
/// ``CatalogError``. Products and offerings both write through it.
struct CatalogWrites: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Runs `body` with the new revision. With `dryRun`, the transaction runs whole and is then rolled back, so a
    /// dry run is refused for every reason the write would be (SQL's own rules included), and changes nothing.
    func write<Result: Sendable>(
        appID: String,
        dryRun: Bool = false,
        _ body: (PostgresConnection, Int64) async throws -> Result
    ) async throws -> Result {
        do {
            return try await client.transaction(logger: logger, attempts: 1) { connection in
                let rows = try await connection.checkedQuery(
                    """
                    INSERT INTO catalog.revisions (app_id, revision) VALUES (\(appID), 1)
                    ON CONFLICT (app_id) DO UPDATE SET revision = catalog.revisions.revision + 1
                    RETURNING revision
                    """,
                    logger: logger
                )
                var revision: Int64 = 0
                for try await value in rows.decode(Int64.self) { revision = value }
                let result = try await body(connection, revision)
                if dryRun {
                    // Deferred constraints are checked now, then everything is undone.
                    try await connection.checkedQuery("SET CONSTRAINTS ALL IMMEDIATE", logger: logger)
                    throw DryRunRollback(result: result)
                }
                return result
            }
        } catch let rollback as DryRunRollback<Result> {
            return rollback.result
        } catch {
            throw Self.mapped(error)
        }
    }

    /// A write that deletes one row (`statement`: a `DELETE ... RETURNING`); throws `notFound` when it deleted none.
    func deleteOne(appID: String, dryRun: Bool = false, _ statement: PostgresQuery, notFound: CatalogError)
        async throws -> Int64
    {
        try await write(appID: appID, dryRun: dryRun) { connection, revision in
            let deleted = try await connection.checkedQuery(statement, logger: logger).collect()
            guard !deleted.isEmpty else { throw notFound }
            return revision
        }
    }

    /// A dry run's result, thrown to roll its transaction back.
    private struct DryRunRollback<Result: Sendable>: Error {
        let result: Result
    }

    /// SQL's refusals of catalog writes as the problems they are.
    static func mapped(_ error: any Error) -> any Error {
        guard let psql = error as? PSQLError, let state = psql.serverInfo?[.sqlState] else { return error }
        let constraint = psql.serverInfo?[.constraintName] ?? ""
        let detail = psql.serverInfo?[.detail] ?? ""
        let values = keyValues(detail)
        // "... is still referenced from table ...": a delete or change of something an offering uses.
        let referenced = detail.contains("still referenced")
        switch (state, constraint) {
        case ("23505", "store_products_pkey"):
            // detail: Key (app_id, platform, store_product_id)=(app, app_store, com.x) already exists.
            return CatalogError.storeProductIDTaken(
                platform: values.count > 1 ? values[1] : "store",
                storeProductID: values.count > 2 ? values[2...].joined(separator: ",") : "?"
            )
        case ("23503", "offering_packages_product_fkey"):
            let product = values.count > 1 ? values[1] : "?"
            return referenced ? CatalogError.productInOffering(product) : CatalogError.productNotFound(product)
        case ("23503", "offering_package_store_products_store_fkey"):
            let storeID = values.count > 2 ? values[2] : "?"
            return referenced
                ? CatalogError.storeProductIDInOffering(storeID)
                : CatalogError.invalidOffering([
                    FieldProblem(
                        pointer: "/packages",
                        detail: "store product id '\(storeID)' is not one the catalog maps to the package's product")
                ])
        case ("23503", "offering_rules_offering_fkey"):
            let offering = values.count > 1 ? values[1] : "?"
            return referenced ? CatalogError.offeringInUse(offering) : CatalogError.offeringNotFound(offering)
        case ("23503", "experiment_variants_offering_fkey"):
            let offering = values.count > 1 ? values[1] : "?"
            return referenced
                ? CatalogError.offeringInExperiment(offering)
                : CatalogError.invalidExperiment([
                    FieldProblem(pointer: "/variants", detail: "offering '\(offering)' is not one of this app's")
                ])
        case ("23505", "experiments_pkey"):
            return CatalogError.experimentExists(values.count > 1 ? values[1] : "?")
        case ("23514", "experiment_variants_fixed"):
            return CatalogError.experimentRunning("?")
        case ("23514", "offerings_default_required"), ("23505", "offerings_one_default"):
            return CatalogError.defaultOfferingRequired
        default:
            return error
        }
    }

    /// The values of a key detail such as `Key (app_id, product_id)=(app, x) ...`.
    private static func keyValues(_ detail: String) -> [String] {
        guard let equals = detail.firstIndex(of: "=") else { return [] }
        let rest = detail[detail.index(after: equals)...].dropFirst()
        let inside = rest.prefix { $0 != ")" }
        return inside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
