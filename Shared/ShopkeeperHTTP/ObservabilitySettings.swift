import ShopkeeperCore

/// What every service reads about its telemetry beyond the Prometheus metrics it always serves.
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_TRACING` | `off` | `otlp`: export trace spans over OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT` (default `http://localhost:4318`; the other `OTEL_*` exporter variables apply) |
/// | `SHOPKEEPER_BACKLOG_METRICS_INTERVAL_SECONDS` | `15` | how often the backlog gauges are read from the database (one small count per gauge); `0` turns them off |
package struct ObservabilitySettings: Sendable, Equatable {
    /// Where trace spans go.
    package enum Tracing: String, Sendable, CaseIterable {
        /// No spans, no `traceparent`: the default, and free.
        case off
        /// Spans exported over OTLP/HTTP, `traceparent` propagated on every internal call.
        case otlp
    }

    package var tracing: Tracing
    /// `nil`: the backlog gauges are not read.
    package var backlogInterval: Duration?

    package init(tracing: Tracing = .off, backlogInterval: Duration? = .seconds(15)) {
        self.tracing = tracing
        self.backlogInterval = backlogInterval
    }

    /// Whether requests get spans and internal calls carry `traceparent`.
    package var isTracing: Bool { tracing != .off }

    /// Reads and validates the settings.
    package static func read(from environment: EnvironmentReader) throws(ConfigurationError) -> ObservabilitySettings {
        let interval = try environment.int("SHOPKEEPER_BACKLOG_METRICS_INTERVAL_SECONDS", default: 15, in: 0...3600)
        return ObservabilitySettings(
            tracing: try environment.choice("SHOPKEEPER_TRACING", default: .off),
            backlogInterval: interval == 0 ? nil : .seconds(interval))
    }
}
