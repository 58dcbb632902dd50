import Hummingbird
import HummingbirdCore
import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle
import ShopkeeperCore
import ShopkeeperDatabase

/// Assembles what every service shares: middleware in the right order, health and metrics routes, the database
/// pool as a lifecycle service, and migrations applied before the server accepts requests.
package enum ServiceApplication {
    /// Adds the standard middleware to a service router: the trace span (when tracing is on), request id, problem
    /// rendering, metrics, internal auth.
    ///
    /// Call before adding any route, so every route gets them.
    package static func addStandardMiddleware(
        to router: Router<ServiceRequestContext>,
        settings: ServiceSettings
    ) {
        ServiceTracing.addMiddleware(to: router, settings: settings.observability)
        router.addMiddleware {
            RequestIDMiddleware()
            ProblemMiddleware()
            NULCharacterMiddleware()
            MetricsMiddleware()
            InternalAuthMiddleware(signature: settings.internalSignature, internalBodyLimit: settings.maxBodyBytes)
        }
    }

    /// The router of an internal service backed by one database: the standard middleware
    /// (``addStandardMiddleware(to:settings:)``), then the operational routes, ready once the database answers with
    /// every one of `migrations` applied. The service adds its own routes to it.
    package static func makeRouter(
        settings: ServiceSettings,
        database: PostgresClient,
        migrations: MigrationRunner,
        metrics: PrometheusCollectorRegistry,
        logger: Logger
    ) -> Router<ServiceRequestContext> {
        let router = Router(context: ServiceRequestContext.self)
        addStandardMiddleware(to: router, settings: settings)
        addOperationalRoutes(
            to: router, readiness: [.database(database, migrations: migrations, logger: logger)], metrics: metrics)
        return router
    }

    /// Adds `/health/live`, `/health/ready` and `/metrics`: for the internal services, whose port is reachable only
    /// inside the network.
    package static func addOperationalRoutes<Context: RequestContext>(
        to router: Router<Context>,
        readiness: [ReadinessCheck],
        metrics: PrometheusCollectorRegistry
    ) {
        addHealthRoutes(to: router, readiness: readiness)
        router.addRoutes(MetricsController<Context>(registry: metrics).endpoints)
    }

    /// Adds `/health/live` and `/health/ready` only: for a public port, whose metrics are served by a
    /// ``MetricsListener`` of their own.
    package static func addHealthRoutes<Context: RequestContext>(
        to router: Router<Context>,
        readiness: [ReadinessCheck]
    ) {
        router.addRoutes(HealthController<Context>(checks: readiness).endpoints, atPath: "/health")
    }

    /// The application: the router's server (`server`: HTTP/1.1, with any channel handlers a service adds), the
    /// database pool, migrations before the first request. `startup` opens once the migrations are applied, for
    /// background `services` to wait on.
    package static func make<Responder: HTTPResponder>(
        responder: Responder,
        server: HTTPServerBuilder = .http1(),
        settings: ServiceSettings,
        database: PostgresClient,
        migrations: MigrationRunner,
        services: [any Service] = [],
        startup: StartupGate? = nil,
        logger: Logger
    ) -> Application<Responder> where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        var app = Application(
            responder: responder,
            server: server,
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
            services: [database] + services,
            logger: logger
        )
        let timeout = settings.databaseStartTimeout
        let target = "\(settings.database.host):\(settings.database.port)/\(settings.database.database)"
        app.beforeServerStarts {
            // The pool retries connecting forever; at start, a database that never answers must stop the process
            // with a clear message instead of leaving it silently unready.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await migrations.run(client: database, logger: logger) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw DatabaseStartTimeout(target: target, timeout: timeout)
                }
                try await group.next()
                group.cancelAll()
            }
            startup?.open()
        }
        return app
    }
}

extension ReadinessCheck {
    /// The database answers and every migration this build knows is applied.
    package static func database(_ client: PostgresClient, migrations: MigrationRunner, logger: Logger)
        -> ReadinessCheck
    {
        ReadinessCheck(name: "database") {
            let pending = try await migrations.pending(client: client, logger: logger)
            guard pending.isEmpty else {
                throw ReadinessFailure("schema changes pending: \(pending.joined(separator: ", "))")
            }
        }
    }
}

/// The database did not answer within `SHOPKEEPER_DB_START_TIMEOUT_SECONDS` at start.
package struct DatabaseStartTimeout: Error, CustomStringConvertible {
    package var target: String
    package var timeout: Duration

    package var description: String {
        "the database at \(target) (DATABASE_URL) did not answer within \(timeout) "
            + "(SHOPKEEPER_DB_START_TIMEOUT_SECONDS); is PostgreSQL running and reachable?"
    }
}
