import Logging

/// A domain type that logs through a logger it holds: the service's when it is built (for background work), a
/// request's inside a request (``logging(to:)``), so every line it logs there carries the request id.
package protocol RequestLogging {
    /// Where its log lines go.
    var logger: Logger { get set }
}

extension RequestLogging {
    /// A copy that logs through `logger`: give it `context.logger` in a handler.
    package func logging(to logger: Logger) -> Self {
        var copy = self
        copy.logger = logger
        return copy
    }
}
