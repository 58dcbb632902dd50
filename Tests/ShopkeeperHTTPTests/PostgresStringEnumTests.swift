import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// The model enums decode straight from a `text` column and bind as parameters; an unknown value is a decoding error.
@Suite struct PostgresStringEnumTests {
    static let logger = Logger(label: "postgres-string-enum-test")

    @Test("Every case of the four enums goes to the database and back as itself")
    func roundTrips() async throws {
        try await TestDatabase.withClient { client in
            try await Self.expectRoundTrips(ProductType.self, client)
            try await Self.expectRoundTrips(EventType.self, client)
            try await Self.expectRoundTrips(TrialState.self, client)
            try await Self.expectRoundTrips(EligibilityReason.self, client)
        }
    }

    @Test("A value the enum does not know fails decoding with PostgresNIO's decoding error, naming the column")
    func unknownValueIsADecodingError() async throws {
        try await TestDatabase.withClient { client in
            let rows = try await client.query("SELECT 'subscription'::text AS product_type", logger: Self.logger)
            let error = await #expect(throws: PostgresDecodingError.self) {
                for try await _ in rows.decode(ProductType.self) {}
            }
            #expect(error?.columnName == "product_type")
        }
    }

    /// Every case of `Value`, bound as a parameter and read back, is itself.
    static func expectRoundTrips<Value: PostgresStringEnum & CaseIterable & Equatable>(
        _: Value.Type, _ client: PostgresClient
    ) async throws {
        for value in Value.allCases {
            let echoed = try await echo(value, client)
            #expect(echoed == value, "\(value.rawValue)")
        }
    }

    /// The value bound as a parameter, read back from the same row.
    static func echo<Value: PostgresStringEnum>(_ value: Value, _ client: PostgresClient) async throws -> Value? {
        let rows = try await client.query("SELECT \(value)::text", logger: logger)
        for try await decoded in rows.decode(Value.self) { return decoded }
        return nil
    }
}
