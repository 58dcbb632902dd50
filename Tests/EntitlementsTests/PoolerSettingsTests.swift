import ShopkeeperCore
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// The customer info cache learns of changes by `LISTEN`, which a transaction pooler cannot carry.
@Suite struct PoolerSettingsTests {
    @Test("Through a transaction pooler, the cache needs DATABASE_DIRECT_URL for its LISTEN, or to be off")
    func poolerNeedsADirectURL() throws {
        let pooled = ["SHOPKEEPER_DB_POOLER": "transaction"]
        #expect {
            _ = try EntitlementsSettings.read(from: TestEnvironment.reader(pooled))
        } throws: { error in
            (error as? ConfigurationError)?.variable == "DATABASE_DIRECT_URL"
        }
        let direct = try EntitlementsSettings.read(
            from: TestEnvironment.reader(pooled.merging(["DATABASE_DIRECT_URL": try TestDatabase.url()]) { $1 }))
        #expect(direct.service.database.sessionSettings?.maximumConnections == 1)
        let off = try EntitlementsSettings.read(
            from: TestEnvironment.reader(pooled.merging(["SHOPKEEPER_CUSTOMER_CACHE_MS": "0"]) { $1 }))
        #expect(!off.makeCustomerInfoCache().isEnabled)
    }
}
