import Foundation
import ShopkeeperCore
import ShopkeeperModels

/// Helpers shared by the service tests.
package enum TestEnvironment {
    /// The internal secret every test service uses.
    package static let internalSecret = "test-internal-secret-0123456789-abcdefghijklmnop"

    /// An ``EnvironmentReader`` with the test database, port 0 (the gateway's metrics listener too) and the test
    /// secret, plus `extra`. A gateway's per-client limit of public keys is its ceiling: every test caller comes
    /// from 127.0.0.1, where production has one address per device (the tests of that limit set their own).
    package static func reader(_ extra: [String: String] = [:]) throws -> EnvironmentReader {
        var values = [
            "DATABASE_URL": try TestDatabase.url(),
            "SHOPKEEPER_PORT": "0",
            "SHOPKEEPER_GATEWAY_METRICS_PORT": "0",
            "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT": "1000/2000",
            "SHOPKEEPER_INTERNAL_SECRET": internalSecret,
            "SHOPKEEPER_DB_POOL_SIZE": "4",
        ]
        values.merge(extra) { _, new in new }
        return EnvironmentReader(values)
    }

    /// A unique app id for a test, so tests sharing the database never see each other's data.
    package static func uniqueAppID() -> String {
        RandomToken.identifier(prefix: "app_test", length: 12)
    }

    /// The signed internal headers the gateway would add for `caller`.
    package static func signedHeaders(
        method: String,
        pathAndQuery: String,
        caller: InternalCaller?,
        body: Data? = nil,
        secret: String = internalSecret
    ) -> [(String, String)] {
        let hash = body.map { InternalSignature.bodyHash($0) } ?? InternalSignature.unsignedPayload
        return InternalSignature(secret: secret).headers(
            method: method,
            pathAndQuery: pathAndQuery,
            caller: caller,
            contentSHA256: hash
        )
    }
}
