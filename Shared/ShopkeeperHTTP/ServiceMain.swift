import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle
import ShopkeeperCore
import ShopkeeperDatabase
import UnixSignals

/// The `main` every service shares: logging, metrics and (when `SHOPKEEPER_TRACING` asks) tracing bootstrap,
/// settings, run until SIGTERM/SIGINT.
///
/// A bad setting stops the process with exit status 78 (`EX_CONFIG`) and a message naming the variable; any other
/// failure to start or run logs the error and exits with 1.
package enum ServiceMain {
    /// Sizes NIO's event loop group (`SHOPKEEPER_EVENT_LOOP_THREADS`, default one per core) and makes Swift
    /// concurrency run on it, so handlers resume on the thread that did their I/O instead of hopping to the global
    /// pool on every await. Call first thing in `main`, on the main thread, as ``start(service:environment:build:)``
    /// does.
    private static func useEventLoopsAsGlobalExecutor(environment: EnvironmentReader = EnvironmentReader()) {
        do {
            NIOSingletons.groupLoopCountSuggestion = try environment.int(
                "SHOPKEEPER_EVENT_LOOP_THREADS",
                default: System.coreCount,
                in: 1...256
            )
        } catch {
            // Logging is not bootstrapped yet: say it plainly on standard error.
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            exit(78)
        }
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// A service's whole `main`: puts Swift concurrency on NIO's event loops
    /// (``useEventLoopsAsGlobalExecutor(environment:)``), then bootstraps, builds and runs the application as
    /// ``run(service:environment:build:)`` does. On the main actor, as `main` is, so that the executor is installed
    /// on the main thread before anything runs on the global one.
    @MainActor
    package static func start<App: ApplicationProtocol>(
        service: String,
        environment: EnvironmentReader = EnvironmentReader(),
        build: @Sendable (EnvironmentReader, PrometheusCollectorRegistry) async throws -> App
    ) async -> Never {
        useEventLoopsAsGlobalExecutor(environment: environment)
        await run(service: service, environment: environment, build: build)
    }

    /// Bootstraps logging, metrics and tracing, builds the application with `build` and runs it.
    package static func run<App: ApplicationProtocol>(
        service: String,
        environment: EnvironmentReader = EnvironmentReader(),
        build: @Sendable (EnvironmentReader, PrometheusCollectorRegistry) async throws -> App
    ) async -> Never {
        do {
            let observability = try ObservabilitySettings.read(from: environment)
            _ = try LoggingSystem.bootstrapJSON(
                environment: environment,
                metadataProvider: observability.isTracing ? ServiceTracing.loggingMetadataProvider : nil)
            let registry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            DatabasePooler.bootstrap(try DatabasePooler.read(from: environment))
            // Before `build`: the HTTP clients it makes take the tracer that is bootstrapped when they are made.
            let exporter: (any Service)? =
                observability.isTracing
                ? try ServiceTracing.bootstrap(service: service, logger: Logger(label: service)) : nil
            let shutdown = try ShutdownLimits.read(from: environment)
            let app = try await build(environment, registry)
            try await runGroup(
                app, exporter: exporter, shutdown: shutdown, logger: Logger(label: service))
            exit(0)
        } catch let error as ConfigurationError {
            Logger(label: service).critical("\(error.description)")
            exit(78)
        } catch {
            Logger(label: service).critical("stopped by an error", metadata: ["error": "\(String(reflecting: error))"])
            exit(1)
        }
    }

    /// Runs `app` (beside the span exporter when tracing): SIGTERM and SIGINT shut the application down gracefully
    /// first, then the exporter, which sends the spans it still holds. A graceful shutdown that takes longer than
    /// `shutdown` allows is escalated to cancelling every task, so a stuck request or job cannot keep the process
    /// from exiting (an orchestrator would kill it anyway, without the cancellation's cleanup).
    private static func runGroup(
        _ app: some ApplicationProtocol, exporter: (any Service)?, shutdown: ShutdownLimits, logger: Logger
    ) async throws {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let exporter { services.append(.init(service: exporter)) }
        services.append(.init(service: app, successTerminationBehavior: .gracefullyShutdownGroup))
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = shutdown.grace
        configuration.maximumCancellationDuration = shutdown.cancellation
        // Says so when the group escalates (it logs that only at debug level): what was left is cancelled.
        let overrun = Task {
            for await signal in await UnixSignalsSequence(trapping: .sigterm, .sigint) {
                try? await Task.sleep(for: shutdown.grace)
                guard !Task.isCancelled else { return }
                logger.warning(
                    """
                    graceful shutdown took longer than \(shutdown.grace) after \(signal): cancelling what is left \
                    (requests in flight, background jobs)
                    """)
                return
            }
        }
        defer { overrun.cancel() }
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// How long a service may take to stop: `SHOPKEEPER_SHUTDOWN_GRACE_SECONDS` (default 15) for a graceful shutdown
/// (requests in flight answered, background jobs handing their claims back), then 5 seconds at most for the
/// cancellation that follows, after which the process stops with a fatal error naming the overrun (a task that
/// ignores cancellation). Together within Kubernetes' default grace period (30 s) and the test stacks' wait for a
/// process to exit.
struct ShutdownLimits {
    var grace: Duration
    var cancellation: Duration

    static func read(from environment: EnvironmentReader) throws(ConfigurationError) -> ShutdownLimits {
        let seconds = try environment.int("SHOPKEEPER_SHUTDOWN_GRACE_SECONDS", default: 15, in: 1...3600)
        return ShutdownLimits(grace: .seconds(seconds), cancellation: .seconds(5))
    }
}
