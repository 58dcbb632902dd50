import Dispatch
import HTTPTypes
import Metrics
import NIOConcurrencyHelpers

/// The request metrics of the requests the connection pipeline answers (``ChannelProxy``), under the names and dimensions Hummingbird's `MetricsMiddleware` gives
/// the router's requests (`hb.requests`, `http.server.request.duration`), so `/metrics` counts both paths as one.
final class ProxyMetrics: Sendable {
    private struct Key: Hashable {
        var route: String
        var method: HTTPRequest.Method
        var status: Int
    }

    private struct Instruments: Sendable {
        var requests: Counter
        var duration: Timer
    }

    private let instruments = NIOLockedValueBox([Key: Instruments]())

    /// Records one request answered with `status` after `nanoseconds`.
    func record(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, nanoseconds: UInt64) {
        let key = Key(route: route, method: method, status: status.code)
        let found = instruments.withLockedValue { instruments in
            if let found = instruments[key] { return found }
            let dimensions = [
                ("http.route", route), ("http.request.method", method.rawValue),
                ("http.response.status_code", "\(status.code)"),
            ]
            let made = Instruments(
                requests: Counter(label: "hb.requests", dimensions: dimensions),
                duration: Timer(
                    label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds))
            instruments[key] = made
            return made
        }
        found.requests.increment()
        found.duration.recordNanoseconds(Int64(truncatingIfNeeded: nanoseconds))
    }

    /// Now, for durations.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
