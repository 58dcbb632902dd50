import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Catalog
@testable import Entitlements
@testable import Subscriptions

/// The check constraints that spell the enums' words in SQL (entitlements `0033_type_checks`, catalog
/// `0005_product_type_check`; events through `entitlements.event_type_known_v1`) name exactly the enums' cases: a case added to `ProductType` or `EventType` without a
/// migration fails here, not in production at the first write of it.
@Suite struct TypeCheckTests {
    static let logger = Logger(label: "type-check-test")

    /// The quoted words of a check constraint's definition (`CHECK ((type = ANY (ARRAY['a'::text, ...])))`).
    static func words(of constraint: String, on client: PostgresClient) async throws -> Set<String> {
        let rows = try await client.query(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = \(constraint) AND convalidated",
            logger: logger)
        var definitions: [String] = []
        for try await definition in rows.decode(String.self) { definitions.append(definition) }
        #expect(definitions.count == 1, "\(constraint) exists once, validated")
        let definition = definitions.first ?? ""
        let literal = /'([a-z_]+)'::text/
        return Set(definition.matches(of: literal).map { String($0.output.1) })
    }

    @Test("each type check names exactly its enum's words")
    func checksMatchTheEnums() async throws {
        try await TestDatabase.withFreshDatabase { settings in
            try await TestDatabase.withClient(settings) { client in
                try await CatalogMigrations.runner.run(client: client, logger: Self.logger)
                try await SubscriptionsMigrations.runner.run(client: client, logger: Self.logger)
                try await EntitlementsMigrations.runner.run(client: client, logger: Self.logger)
                let productTypes = Set(ProductType.allCases.map(\.rawValue))
                let eventTypes = Set(EventType.allCases.map(\.rawValue))
                #expect(try await Self.words(of: "products_type_known", on: client) == productTypes)
                // A purchase of a product neither the catalog nor the store typed is `unknown`.
                #expect(
                    try await Self.words(of: "purchases_product_type_known", on: client)
                        == productTypes.union(["unknown"]))
                // Events and parked changes: one list, the function both checks call.
                let source = try await client.query(
                    "SELECT prosrc FROM pg_proc WHERE proname = 'event_type_known_v1'", logger: Self.logger
                ).collect()
                let words = try #require(source.first).decode(String.self).matches(of: /'([a-z_]+)'/)
                #expect(Set(words.map { String($0.output.1) }) == eventTypes)
                for constraint in ["events_type_known", "parked_changes_type_known"] {
                    let definition = try await client.query(
                        "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = \(constraint) AND convalidated",
                        logger: Self.logger
                    ).collect()
                    #expect(try definition.first?.decode(String.self).contains("event_type_known_v1(type)") == true)
                }
            }
        }
    }
}
