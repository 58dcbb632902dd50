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
            for type in ProductType.allCases {
                #expect(try await Self.echo(type, client) == type)
            }
            for type in EventType.allCases {
                #expect(try await Self.echo(type, client) == type)
            }
            for state in TrialState.allCases {
                #expect(try await Self.echo(state, client) == state)
            }
            for reason in EligibilityReason.allCases {
                #expect(try await Self.echo(reason, client) == reason)
            }
        }
    }

    @Test("A value the enum does not know fails decoding with PostgresNIO's decoding error, naming the column")
    func unknownValueIsADecodingError() async throws {
        try await TestDatabase.withClient { client in
            let rows = try await client.query("SELECT 'subscription'::text AS product_type", logger: Self.logger)
            await #expect(throws: PostgresDecodingError.self) {
                for try await _ in rows.decode(ProductType.self) {}
            }
        }
    }

    /// The value bound as a parameter, read back from the same row.
    static func echo<Value: PostgresStringEnum>(_ value: Value, _ client: PostgresClient) async throws -> Value? {
        let rows = try await client.query("SELECT \(value)::text", logger: logger)
        for try await decoded in rows.decode(Value.self) { return decoded }
        return nil
    }
}
