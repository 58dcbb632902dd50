import ShopkeeperCore
import ShopkeeperDatabase

/// Settings every service reads the same way.
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_ENV` | `development` | `production` refuses local default secrets |
/// | `SHOPKEEPER_HOST` | `127.0.0.1` | address to listen on |
/// | `SHOPKEEPER_PORT` | per service | port to listen on |
/// | `DATABASE_URL` | `postgres://postgres@127.0.0.1:5432/shopkeeper` | PostgreSQL |
/// | `SHOPKEEPER_DB_POOL_SIZE` | `10` | most database connections of the pool (entitlements adds one for `LISTEN`) |
/// | `SHOPKEEPER_DB_POOLER` | `none` | `transaction` when `DATABASE_URL` is a pooler in transaction mode (PgBouncer) |
/// | `DATABASE_DIRECT_URL` | unset | PostgreSQL itself, behind the pooler: entitlements' `LISTEN` connects there |
/// | `SHOPKEEPER_INTERNAL_SECRET` | a development value | HMAC secret of internal calls, 32+ characters |
/// | `SHOPKEEPER_SIGNATURE_WINDOW_SECONDS` | `60` | how old an internal signature may be |
/// | `SHOPKEEPER_MAX_BODY_BYTES` | `1048576` | largest JSON body accepted |
/// | `SHOPKEEPER_DB_START_TIMEOUT_SECONDS` | `60` | how long to wait for the database at start before giving up |
/// | `SHOPKEEPER_TRACING`, `SHOPKEEPER_BACKLOG_METRICS_INTERVAL_SECONDS` | | see ``ObservabilitySettings`` |
package struct ServiceSettings: Sendable {
    /// The development-only internal secret; production must set its own.
    package static let developmentInternalSecret = "shopkeeper-development-internal-secret-not-for-production"

    package var serviceName: String
    package var environment: DeploymentEnvironment
    package var host: String
    package var port: Int
    package var database: DatabaseSettings
    package var internalSecret: String
    package var signatureWindow: Duration
    package var maxBodyBytes: Int
    /// How long start-up waits for the database (to apply migrations) before the process gives up.
    package var databaseStartTimeout: Duration
    /// Tracing and the backlog gauges.
    package var observability = ObservabilitySettings()

    /// Reads and validates the common settings.
    package static func read(
        service: String,
        defaultPort: Int,
        from environment: EnvironmentReader
    ) throws(ConfigurationError) -> ServiceSettings {
        let deployment = try DeploymentEnvironment.read(from: environment)
        var settings = ServiceSettings(
            serviceName: service,
            environment: deployment,
            host: environment.string("SHOPKEEPER_HOST", default: "127.0.0.1"),
            port: try environment.int("SHOPKEEPER_PORT", default: defaultPort, in: 0...65535),
            database: try DatabaseSettings.read(from: environment),
            internalSecret: try environment.secret(
                "SHOPKEEPER_INTERNAL_SECRET",
                developmentDefault: developmentInternalSecret,
                environment: deployment
            ),
            signatureWindow: try environment.seconds(
                "SHOPKEEPER_SIGNATURE_WINDOW_SECONDS",
                default: .seconds(60),
                in: 5...600
            ),
            maxBodyBytes: try environment.int("SHOPKEEPER_MAX_BODY_BYTES", default: 1 << 20, in: 1024...(64 << 20)),
            databaseStartTimeout: try environment.seconds(
                "SHOPKEEPER_DB_START_TIMEOUT_SECONDS",
                default: .seconds(60),
                in: 1...3600
            )
        )
        settings.observability = try ObservabilitySettings.read(from: environment)
        return settings
    }

    /// The signer and checker of internal calls.
    package var internalSignature: InternalSignature {
        InternalSignature(secret: internalSecret, window: signatureWindow)
    }
}
