import ShopkeeperCore
import ShopkeeperHTTP

/// The catalog service's settings: the common ones plus
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_PORT` | `8081` | |
/// | `SHOPKEEPER_CATALOG_REFRESH_MS` | `250` | how long a replica trusts its cached catalog before it checks the revision (50-900 ms, so a change shows everywhere within one second) |
struct CatalogSettings: Sendable {
    var service: ServiceSettings
    var refreshInterval: Duration

    static func read(from environment: EnvironmentReader = EnvironmentReader()) throws(ConfigurationError)
        -> CatalogSettings
    {
        CatalogSettings(
            service: try ServiceSettings.read(service: "catalog", defaultPort: 8081, from: environment),
            refreshInterval: .milliseconds(
                try environment.int("SHOPKEEPER_CATALOG_REFRESH_MS", default: 250, in: 50...900))
        )
    }
}
