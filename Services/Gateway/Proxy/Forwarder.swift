import Logging
import ShopkeeperCore
import ShopkeeperHTTP

/// The gateway's one forwarder: what every ``ProxyExchange`` shares, whichever path took its request.
///
/// The connection pipeline's ``ChannelProxyHandler`` starts exchanges for the requests ``ChannelProxy`` takes
/// whole; the router's ``ProxyController`` starts them (``forward(_:to:identity:customer:requestID:on:)``) for everything else it forwards, once
/// its middleware has decided (refusals, CORS, rate limits, the customer boundary, tracing spans, audit). Both lease
/// from the same ``UpstreamPools``, build heads with ``ProxyHeaders`` and share the micro-cache, so a client cannot
/// tell the paths apart.
struct Forwarder: Sendable {
    let pools: UpstreamPools
    /// Short-lived copies of responses the services mark cacheable (the catalog).
    let cache: ResponseMicroCache
    let signature: InternalSignature
    /// Responses up to this many bytes (with a `Content-Length`) are buffered rather than streamed.
    var bufferLimit = Self.defaultBufferLimit
    static let defaultBufferLimit = 256 * 1024
    /// Sends downloads from the content volume, when the gateway can read it.
    var files: FileDelivery?
    /// Whether forwarded heads carry the request span's `traceparent` (tracing on: ``ServiceTracing``).
    var propagatesTrace = false
    /// The request metrics of exchanges the router's own metrics middleware does not see.
    let metrics = ProxyMetrics()
    let requestIDs = RequestIDGenerator()
    let logger: Logger

    init(
        pools: UpstreamPools, cache: ResponseMicroCache, signature: InternalSignature,
        bufferLimit: Int = Self.defaultBufferLimit, files: FileDelivery? = nil, propagatesTrace: Bool = false,
        logger: Logger
    ) {
        self.pools = pools
        self.cache = cache
        self.signature = signature
        self.bufferLimit = bufferLimit
        self.files = files
        self.propagatesTrace = propagatesTrace
        self.logger = logger
    }
}
