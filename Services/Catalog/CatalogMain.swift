import Foundation
import Logging
import Metrics
import NIOCore
import NIOPosix
import Prometheus
import ShopkeeperCore

@main
struct CatalogMain {
    static func main() async throws {
        // Run Swift concurrency on NIO's event loops: handlers then resume where their I/O happens, without a
        // thread hop per await. Must come first, on the main thread.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
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
