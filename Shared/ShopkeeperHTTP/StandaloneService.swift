import Hummingbird
import Logging
import ServiceLifecycle
import ShopkeeperCore

/// The settings of a service that has no database and takes no internal calls (the sandbox store).
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_ENV` | `development` | where the process runs |
/// | `SHOPKEEPER_HOST` | `127.0.0.1` | address to listen on |
/// | `SHOPKEEPER_PORT` | per service | port to listen on |
/// | `SHOPKEEPER_MAX_BODY_BYTES` | `1048576` | largest JSON body accepted |
package struct StandaloneServiceSettings: Sendable {
    package var serviceName: String
    package var environment: DeploymentEnvironment
    package var host: String
    package var port: Int
    package var maxBodyBytes: Int

    /// Reads and validates the settings; `DATABASE_URL` and the internal secret are not read at all.
    package static func read(
        service: String,
        defaultPort: Int,
        from environment: EnvironmentReader
    ) throws(ConfigurationError) -> StandaloneServiceSettings {
        StandaloneServiceSettings(
            serviceName: service,
            environment: try DeploymentEnvironment.read(from: environment),
            host: environment.string("SHOPKEEPER_HOST", default: "127.0.0.1"),
            port: try environment.int("SHOPKEEPER_PORT", default: defaultPort, in: 0...65535),
            maxBodyBytes: try environment.int("SHOPKEEPER_MAX_BODY_BYTES", default: 1 << 20, in: 1024...(64 << 20))
        )
    }
}

extension ServiceApplication {
    /// The application of a service without a database: the router's server and `services`, nothing to wait for
    /// before the first request.
    package static func makeStandalone<Responder: HTTPResponder>(
        responder: Responder,
        settings: StandaloneServiceSettings,
        services: [any Service] = [],
        logger: Logger
    ) -> Application<Responder> where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        Application(
            responder: responder,
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
            services: services,
            logger: logger
        )
    }
}
