import Foundation
import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperModels

/// ``OfferingRepository`` on PostgreSQL, stored as products are: the document as `jsonb` beside the columns SQL holds
/// rules on (the default flag; each package's product and store ids, by foreign keys; each rule's offering).
struct OfferingPostgresRepository: OfferingRepository {
    let client: PostgresClient
    let logger: Logger

    private var writes: CatalogWrites { CatalogWrites(client: client, logger: logger) }

    func create(appID: String, offering: Offering, dryRun: Bool) async throws -> Int64 {
        try await writes.write(appID: appID, dryRun: dryRun) { connection, revision in
            let exists = try await connection.checkedQuery(
                """
                SELECT 1 FROM catalog.offerings WHERE app_id = \(appID) AND offering_id = \(offering.offeringID)
                """,
                logger: logger
            ).collect()
            guard exists.isEmpty else { throw CatalogError.offeringExists(offering.offeringID) }
            _ = try await write(offering, appID: appID, on: connection)
            return revision
        }
    }

    func upsert(appID: String, offering: Offering, dryRun: Bool) async throws -> (created: Bool, revision: Int64) {
        try await writes.write(appID: appID, dryRun: dryRun) { connection, revision in
            (try await write(offering, appID: appID, on: connection), revision)
        }
    }

    func delete(appID: String, offeringID: String, dryRun: Bool) async throws -> Int64 {
        try await writes.deleteOne(
            appID: appID, dryRun: dryRun,
            """
            DELETE FROM catalog.offerings WHERE app_id = \(appID) AND offering_id = \(offeringID)
            RETURNING offering_id
            """,
            notFound: .offeringNotFound(offeringID))
    }

    func replaceRules(appID: String, rules: [TargetingRule], dryRun: Bool) async throws -> CatalogImportResult {
        try await writes.write(appID: appID, dryRun: dryRun) { connection, revision in
            let current = try await currentRules(appID: appID, on: connection)
            try await writeRules(rules, appID: appID, on: connection)
            return Self.ruleDiff(current: current, wanted: rules).result(revision: revision)
        }
    }

    func replaceAll(appID: String, document: OfferingsDocument, dryRun: Bool) async throws -> OfferingsImportResult {
        try await writes.write(appID: appID, dryRun: dryRun) { connection, revision in
            var current: [Offering] = []
            let rows = try await connection.checkedQuery(
                "SELECT document::text FROM catalog.offerings WHERE app_id = \(appID)", logger: logger)
            for try await text in rows.decode(String.self) {
                current.append(try JSONDecoder().decode(Offering.self, from: Data(text.utf8)))
            }
            let currentRules = try await currentRules(appID: appID, on: connection)
            let diff = CatalogDiff(current: current, wanted: document.offerings, id: \.offeringID)
            // Rules first (they name offerings), then the offerings, then the rules again.
            try await connection.checkedQuery(
                "DELETE FROM catalog.offering_rules WHERE app_id = \(appID)", logger: logger)
            if !diff.deleted.isEmpty {
                try await connection.checkedQuery(
                    "DELETE FROM catalog.offerings WHERE app_id = \(appID) AND offering_id = ANY(\(diff.deleted))",
                    logger: logger)
            }
            for offering in diff.changed.sorted(by: { !$0.isDefault && $1.isDefault }) {
                _ = try await write(offering, appID: appID, on: connection)
            }
            try await writeRules(document.rules, appID: appID, on: connection)
            return OfferingsImportResult(
                offerings: diff.result(revision: revision),
                rules: Self.ruleDiff(current: currentRules, wanted: document.rules).result(revision: revision))
        }
    }

    // MARK: - Helpers

    /// Writes one offering with its packages; another default loses the flag. Returns whether it was created.
    private func write(_ offering: Offering, appID: String, on connection: PostgresConnection) async throws -> Bool {
        if offering.isDefault {
            try await connection.checkedQuery(
                """
                UPDATE catalog.offerings
                SET is_default = false, document = document || '{"default": false}'::jsonb, updated_at = now()
                WHERE app_id = \(appID) AND is_default AND offering_id <> \(offering.offeringID)
                """,
                logger: logger)
        }
        let document = String(decoding: try JSONBody.encode(offering), as: UTF8.self)
        var created = false
        let rows = try await connection.checkedQuery(
            """
            INSERT INTO catalog.offerings (app_id, offering_id, is_default, document)
            VALUES (\(appID), \(offering.offeringID), \(offering.isDefault), \(document)::jsonb)
            ON CONFLICT (app_id, offering_id) DO UPDATE SET
                is_default = excluded.is_default, document = excluded.document, updated_at = now()
            RETURNING (xmax = 0) AS created
            """,
            logger: logger)
        for try await value in rows.decode(Bool.self) { created = value }
        try await connection.checkedQuery(
            """
            DELETE FROM catalog.offering_packages WHERE app_id = \(appID) AND offering_id = \(offering.offeringID)
            """,
            logger: logger)
        let packageIDs = offering.packages.map(\.packageID)
        let productIDs = offering.packages.map(\.productID)
        let positions = Array(0..<offering.packages.count)
        try await connection.checkedQuery(
            """
            INSERT INTO catalog.offering_packages (app_id, offering_id, package_id, position, product_id)
            SELECT \(appID), \(offering.offeringID), * FROM unnest(\(packageIDs)::text[], \(positions)::integer[],
                                                                  \(productIDs)::text[])
            """,
            logger: logger)
        var overridePackages: [String] = []
        var platforms: [String] = []
        var storeIDs: [String] = []
        var products: [String] = []
        for package in offering.packages {
            for (platform, storeID) in package.storeProductIDs {
                overridePackages.append(package.packageID)
                platforms.append(platform.rawValue)
                storeIDs.append(storeID)
                products.append(package.productID)
            }
        }
        if !overridePackages.isEmpty {
            try await connection.checkedQuery(
                """
                INSERT INTO catalog.offering_package_store_products
                    (app_id, offering_id, package_id, platform, store_product_id, product_id)
                SELECT \(appID), \(offering.offeringID), *
                FROM unnest(\(overridePackages)::text[], \(platforms)::text[], \(storeIDs)::text[], \(products)::text[])
                """,
                logger: logger)
        }
        return created
    }

    private func writeRules(_ rules: [TargetingRule], appID: String, on connection: PostgresConnection) async throws {
        try await connection.checkedQuery("DELETE FROM catalog.offering_rules WHERE app_id = \(appID)", logger: logger)
        guard !rules.isEmpty else { return }
        let ids = rules.map(\.ruleID)
        let offerings = rules.map(\.offeringID)
        let positions = Array(0..<rules.count)
        let documents = try rules.map { String(decoding: try JSONBody.encode($0), as: UTF8.self) }
        try await connection.checkedQuery(
            """
            INSERT INTO catalog.offering_rules (app_id, rule_id, position, offering_id, document)
            SELECT \(appID), r.id, r.position, r.offering, r.document::jsonb
            FROM unnest(\(ids)::text[], \(positions)::integer[], \(offerings)::text[], \(documents)::text[])
                AS r(id, position, offering, document)
            """,
            logger: logger)
    }

    private func currentRules(appID: String, on connection: PostgresConnection) async throws -> [TargetingRule] {
        var rules: [TargetingRule] = []
        let rows = try await connection.checkedQuery(
            "SELECT document::text FROM catalog.offering_rules WHERE app_id = \(appID) ORDER BY position",
            logger: logger)
        for try await text in rows.decode(String.self) {
            rules.append(try JSONDecoder().decode(TargetingRule.self, from: Data(text.utf8)))
        }
        return rules
    }

    /// Rules compared with their place in the order: a rule that moved is updated.
    private static func ruleDiff(current: [TargetingRule], wanted: [TargetingRule]) -> CatalogDiff<PlacedRule> {
        CatalogDiff(
            current: current.enumerated().map { PlacedRule(position: $0.offset, rule: $0.element) },
            wanted: wanted.enumerated().map { PlacedRule(position: $0.offset, rule: $0.element) },
            id: \.rule.ruleID)
    }

    private struct PlacedRule: Equatable {
        var position: Int
        var rule: TargetingRule
    }
}
