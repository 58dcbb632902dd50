import ShopkeeperCore
import Testing

@testable import ShopkeeperDatabase

/// The connection settings: the pool size, the pooler mode and the direct URL, read and checked at start.
@Suite struct DatabaseSettingsTests {
    @Test func defaultsGoStraightToPostgreSQLWithTheTimeoutsAsStartupParameters() throws {
        let settings = try DatabaseSettings.read(from: EnvironmentReader([:]))
        #expect(settings.maximumConnections == 10)
        #expect(settings.pooler == .none)
        #expect(settings.direct == nil)
        let parameters = settings.clientConfiguration.options.additionalStartupParameters.map(\.0)
        #expect(parameters == ["lock_timeout", "statement_timeout", "idle_in_transaction_session_timeout"])
        // LISTEN gets a connection of its own to the same database.
        let session = try #require(settings.sessionSettings)
        #expect(session.endpoint == settings.endpoint)
        #expect(session.maximumConnections == 1)
    }

    @Test func throughATransactionPoolerNoStartupParametersAndListenGoesDirect() throws {
        let settings = try DatabaseSettings.read(
            from: EnvironmentReader([
                "DATABASE_URL": "postgres://shop:secret@pgbouncer:6432/shopkeeper",
                "SHOPKEEPER_DB_POOLER": "transaction",
                "DATABASE_DIRECT_URL": "postgres://shop:secret@postgres:5432/shopkeeper",
                "SHOPKEEPER_DB_POOL_SIZE": "4",
            ]))
        #expect(settings.pooler == .transaction)
        #expect(settings.maximumConnections == 4)
        // PgBouncer 1.18 refuses startup parameters it does not know.
        #expect(settings.clientConfiguration.options.additionalStartupParameters.isEmpty)
        let session = try #require(settings.sessionSettings)
        #expect(session.host == "postgres" && session.port == 5432 && session.pooler == .none)
        #expect(session.maximumConnections == 1)
        #expect(session.clientConfiguration.options.additionalStartupParameters.count == 3)
    }

    @Test func aTransactionPoolerWithoutADirectURLHasNoSession() throws {
        let settings = try DatabaseSettings.read(from: EnvironmentReader(["SHOPKEEPER_DB_POOLER": "transaction"]))
        #expect(settings.sessionSettings == nil)
    }

    /// (variable set, its value)
    @Test(arguments: [
        ("SHOPKEEPER_DB_POOLER", "statement"),
        ("SHOPKEEPER_DB_POOL_SIZE", "0"),
        ("SHOPKEEPER_DB_POOL_SIZE", "501"),
        ("DATABASE_DIRECT_URL", "mysql://localhost/shop"),
        ("DATABASE_DIRECT_URL", "postgres://postgres@localhost"),
    ])
    func badValuesNameTheirVariable(variable: String, value: String) throws {
        #expect {
            _ = try DatabaseSettings.read(from: EnvironmentReader([variable: value]))
        } throws: { error in
            (error as? ConfigurationError)?.variable == variable
        }
    }
}
