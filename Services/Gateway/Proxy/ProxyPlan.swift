import NIOHTTP1
import ShopkeeperCore
import ShopkeeperHTTP

/// What a ``ProxyExchange`` forwards, where and as whom: worked out by ``ChannelProxy`` for the requests the connection
/// pipeline takes, by ``Forwarder/forward(_:to:identity:customer:requestID:on:)`` for the router's.
struct ProxyPlan {
    var route: UpstreamRoute
    /// `nil` on a keyless route: nothing is cached and the service sees no app identity.
    var identity: KeyIdentity?
    /// The customer a token proved (``CustomerBoundaryGate``), sent in the signed identity; such a request never
    /// uses the micro-cache (its entries are per app, not per customer).
    var customer: String?
    var pool: UpstreamPool
    var requestID: String
    /// The route's label in the gateway's request metrics (`/v1/catalog/**`); `nil` when the router's metrics
    /// middleware records the request.
    var metricsRoute: String?
    /// Whether a `GET` may be answered from, and kept in, the micro-cache (``ForwardedRoute/LocalAnswer/microCache``).
    var usesMicroCache: Bool
    /// Whether the service may hand a download off to the gateway (``FileHandoff``).
    var offersFileDelivery = false
    /// A customer info read the gateway tries to answer from the stored info first.
    var storedRead: ChannelProxy.StoredRead?
    var body: Body
    /// Whether a failure on a reused keep-alive connection is tried once more on another (nothing can be lost).
    var retriesOnStaleConnection: Bool
    /// Headers set on the forwarded head last: the request span's `traceparent` when tracing is on.
    var traceHeaders = HTTPHeaders()
    /// How the answer is signed, when the app signs its answers (``AnswerSigner``).
    var signing: AnswerSigning?

    /// The request body forwarded.
    enum Body: Sendable {
        /// None (a `GET`'s, if any, is dropped).
        case none
        /// Read whole, then forwarded: a body of known, limited length.
        case whole(length: Int)
        /// Forwarded as it arrives, with its length if known (chunked otherwise).
        case streamed(length: Int?)

        /// The `Content-Length` forwarded.
        var length: Int? {
            switch self {
            case .none: nil
            case .whole(let length): length
            case .streamed(let length): length
            }
        }

        var isPresent: Bool {
            if case .none = self { return false }
            return true
        }

        var isStreamed: Bool {
            if case .streamed = self { return true }
            return false
        }
    }
}
