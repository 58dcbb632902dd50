import Foundation
import Logging
import Metrics
import Prometheus
import ShopkeeperCore

@main
struct CatalogMain {
    static func main() async throws {
        let environment = EnvironmentReader()
        do {
            _ = try LoggingSystem.bootstrapJSON(environment: environment)
            let settings = try CatalogSettings.read(from: environment)
            let registry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            let app = try await buildApplication(settings: settings, metrics: registry)
            try await app.runService()
        } catch let error as ConfigurationError {
            Logger(label: "catalog").critical("\(error.description)")
            exit(78)
        } catch {
            Logger(label: "catalog").critical("stopped by an error", metadata: ["error": "\(String(reflecting: error))"])
            exit(1)
        }
    }
}
