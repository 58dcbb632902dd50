import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import ShopkeeperCore
import ShopkeeperHTTP

/// Keeps `GET` responses a service marked cacheable for a short time, per app and URI.
///
/// A service opts a response in with the internal header `x-shopkeeper-cache-ttl-ms` (the catalog sends its own
/// refresh interval, so a change still reaches every client within a second). Entries are per app, so a key never
/// sees another app's response; any write the gateway forwards for an app drops that app's entries, so a
/// developer reads their own change at once through the same gateway.
final class ResponseMicroCache: Sendable {
    /// The internal response header a service sets to make a `GET` response cacheable.
    static let ttlHeader = InternalHeader.cacheTTLMilliseconds

    /// A complete `GET` response.
    struct Entry: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: ByteBuffer
        /// The entity tag of a `200`, which `If-None-Match` is compared with.
        var etag: String?
        /// The headers of the `304 Not Modified` that stands for it (no `Content-Length` or `Content-Type`),
        /// worked out once rather than for every conditional request.
        var notModifiedHeaders: HTTPFields
        /// Served as it is until then.
        var expires: ContinuousClock.Instant
        /// After ``expires`` and until then, served to every request but one, which fetches a new copy meanwhile.
        var staleUntil: ContinuousClock.Instant
        /// Set while one request fetches a new copy of an expired entry (until it stores it, or gives up by then).
        var refreshingUntil: ContinuousClock.Instant?

        init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer) {
            self.status = status
            self.headers = headers
            self.body = body
            let etag = status == .ok ? headers[.eTag] : nil
            self.etag = etag
            var notModified = headers
            if etag != nil {
                notModified[.contentLength] = nil
                notModified[.contentType] = nil
            }
            self.notModifiedHeaders = notModified
            self.expires = .now
            self.staleUntil = .now
        }

        /// Whether a request's `If-None-Match` matches this response: it is then answered `304 Not Modified`.
        func isNotModified(ifNoneMatch: String?) -> Bool {
            guard let etag, let ifNoneMatch else { return false }
            return ifNoneMatch == etag || ETagMatch.matches(ifNoneMatch, etag: etag)
        }
    }

    private let entries = NIOLockedValueBox([String: [String: Entry]]())
    private let maximumEntries: Int
    private let maximumTTL: Duration
    /// Hits (a fresh entry, or a stale one while another request refreshes it) and misses.
    private let metrics = CacheMetrics(cache: "gateway_response")

    init(maximumEntries: Int = 10_000, maximumTTL: Duration = .seconds(1)) {
        self.maximumEntries = maximumEntries
        self.maximumTTL = maximumTTL
    }

    /// The entry for this app and URI while it is fresh; once expired, `nil` for one caller, which fetches a new copy,
    /// and the expired entry for the others meanwhile (so that an expiry sends one request to the service, not one per
    /// client connection), until it is too old to serve.
    func lookup(appID: String, uri: String, now: ContinuousClock.Instant = .now) -> Entry? {
        let found = entries.withLockedValue { entries -> Entry? in
            guard var entry = entries[appID]?[uri] else { return nil }
            if entry.expires > now { return entry }
            guard entry.staleUntil > now else { return nil }
            if let refreshing = entry.refreshingUntil, refreshing > now { return entry }
            entry.refreshingUntil = entry.staleUntil
            entries[appID]?[uri] = entry
            return nil
        }
        metrics.record(hit: found != nil)
        return found
    }

    /// Stores a response: fresh for `ttl`, then served while one request refreshes it for as long again; never
    /// served more than `maximumTTL` (one second) after it was stored.
    func store(appID: String, uri: String, entry: Entry, ttl: Duration, now: ContinuousClock.Instant = .now) {
        var entry = entry
        let fresh = min(ttl, maximumTTL)
        entry.expires = now + fresh
        entry.staleUntil = now + min(fresh * 2, maximumTTL)
        entry.refreshingUntil = nil
        entries.withLockedValue { entries in
            if entries.values.reduce(0, { $0 + $1.count }) >= maximumEntries {
                entries.removeAll(keepingCapacity: true)
            }
            entries[appID, default: [:]][uri] = entry
        }
    }

    /// Drops every entry of an app (after a write for it went through).
    func invalidate(appID: String) {
        _ = entries.withLockedValue { $0.removeValue(forKey: appID) }
    }
}
