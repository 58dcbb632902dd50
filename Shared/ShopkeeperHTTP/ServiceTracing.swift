import HTTPTypes
import Hummingbird
import Instrumentation
import Logging
import NIOHTTP1
import OTel
import ServiceLifecycle
import Tracing

/// OpenTelemetry tracing, off unless `SHOPKEEPER_TRACING=otlp` (``ObservabilitySettings``).
///
/// When on, `main` bootstraps swift-otel's tracer (spans batched and exported over OTLP/HTTP, configured by the
/// standard `OTEL_*` variables) as the process's `InstrumentationSystem`, and:
/// - every router gets Hummingbird's `TracingMiddleware` outermost: one server span per request, continuing the
///   caller's W3C `traceparent` when it sends one, with the request id recorded as the span attributes
///   `http.request.header.x_request_id` (when the caller sent one) and `http.response.header.x_request_id`;
/// - every AsyncHTTPClient call made inside a request (the signed internal calls, the stores) gets a client span and
///   carries `traceparent`, because AsyncHTTPClient picks the bootstrapped tracer up when the client is made;
/// - the gateway's router-path proxy writes `traceparent` into the heads it forwards (``injectTraceContext(into:)``),
///   and its channel path leaves every request to the router path so that each one gets its span;
/// - log lines written inside a span carry `trace_id` and `span_id`.
///
/// When off, nothing is bootstrapped, no middleware is added and no header is written: the request path is the same
/// code as before tracing existed.
package enum ServiceTracing {
    /// Makes the OTLP tracer, installs it as the process's tracer and returns the service that exports its spans
    /// (run it beside the application, shut down after it, so the last spans are flushed). Call once, from `main`,
    /// after logging is bootstrapped and before any `HTTPClient` is made.
    package static func bootstrap(service: String, logger: Logger) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "shopkeeper-\(service)"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.diagnosticLogger = .custom(logger)
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        return backend.service
    }

    /// The log metadata of the current span (`trace_id`, `span_id`, `trace_flags`), for the log handler.
    package static var loggingMetadataProvider: Logger.MetadataProvider {
        OTel.makeLoggingMetadataProvider()
    }

    /// Adds the tracing middleware to `router` when `settings` turn tracing on; call before any other middleware, so
    /// the span covers them.
    package static func addMiddleware<Context: RequestContext>(
        to router: Router<Context>, settings: ObservabilitySettings
    ) {
        guard settings.isTracing else { return }
        router.add(
            middleware: TracingMiddleware<Context>(
                recordingHeaders: [HTTPField.Name.requestID], redactingQueryParameters: []))
    }

    /// Writes the current span's context (`traceparent`, `tracestate`) into the headers of a request the process
    /// sends without AsyncHTTPClient.
    package static func injectTraceContext(into headers: inout HTTPHeaders) {
        guard let context = ServiceContext.current else { return }
        InstrumentationSystem.instrument.inject(context, into: &headers, using: NIOHeadersInjector())
    }
}

/// Sets a header of a NIO head.
private struct NIOHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
