import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// Keeps `GET` responses a service marked cacheable for a short time, per app and URI.
///
/// A service opts a response in with the internal header `x-shopkeeper-cache-ttl-ms` (the catalog sends its own
/// refresh interval, so a change still reaches every client within a second). Entries are per app, so a key never
/// sees another app's response; any write the gateway forwards for an app drops that app's entries, so a
/// developer reads their own change at once through the same gateway.
///
/// An answer to a request that names a customer in its query (`GET /v1/offerings?app_user_id=...`) is kept per URI,
/// so each customer's own, unless the service marks it customer-neutral (``customerNeutralHeader``: it read nothing of
/// that customer): then one entry, under ``customerNeutralKey(uri:)``, answers every customer asking the same query.
final class ResponseMicroCache: Sendable {
    /// The internal response header a service sets to make a `GET` response cacheable.
    static let ttlHeader = InternalHeader.cacheTTLMilliseconds
    /// The internal response header a service sets (`1`) on a cacheable answer that is the same for every customer.
    static let customerNeutralHeader = InternalHeader.cacheCustomerNeutral
    /// The query parameter that names a customer.
    static let customerParameter = "app_user_id"
    private static let customerParameterPrefix = customerParameter + "="

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
    /// `neutralKey`: the request's ``customerNeutralKey(uri:)``, looked up first when it has one.
    func lookup(
        appID: String, uri: String, neutralKey: String? = nil, now: ContinuousClock.Instant = .now
    ) -> Entry? {
        let found = entries.withLockedValue { entries -> Entry? in
            if let neutralKey, entries[appID]?[neutralKey] != nil {
                return Self.take(&entries, appID: appID, key: neutralKey, now: now)
            }
            return Self.take(&entries, appID: appID, key: uri, now: now)
        }
        metrics.record(hit: found != nil)
        return found
    }

    /// The entry under `key` while it is fresh; once expired, `nil` for the one caller that refreshes it (marked so),
    /// the expired entry for the others, until it is too old to serve.
    private static func take(
        _ entries: inout [String: [String: Entry]], appID: String, key: String, now: ContinuousClock.Instant
    ) -> Entry? {
        guard let entry = entries[appID]?[key] else { return nil }
        if entry.expires > now { return entry }
        guard entry.staleUntil > now else { return nil }
        if let refreshing = entry.refreshingUntil, refreshing > now { return entry }
        entries[appID]?[key]?.refreshingUntil = entry.staleUntil
        return nil
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

    /// The key of the one entry that answers every customer asking `uri` (a request target), when the service marks
    /// its answer customer-neutral: `uri` with the value of its `app_user_id` left out, behind a space (which no
    /// request target holds, so no URI's own entry is ever taken for it). `nil` unless the query names exactly one
    /// customer, plainly spelled (letters, digits and `-._~@:`, 1 to 256 of them, so valid as an app user id) in a
    /// query without percent-encoding or `+`: any other spelling goes to the service, which decides (and refuses an
    /// id that breaks the rules).
    static func customerNeutralKey(uri: String) -> String? {
        guard let question = uri.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let query = uri[uri.utf8.index(after: question)...]
        let name = customerParameterPrefix
        guard query.contains(name),
            !query.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") })
        else { return nil }
        var kept: [Substring] = []
        var customer: Substring?
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
            guard pair.hasPrefix(name) || pair == customerParameter else {
                kept.append(pair)
                continue
            }
            // `app_user_id` given twice, or without a value: the service's to answer.
            guard customer == nil, pair != customerParameter else { return nil }
            customer = pair.dropFirst(name.utf8.count)
            kept.append(Substring(customerParameter))
        }
        guard let customer, (1...AppUserID.maximumLength).contains(customer.utf8.count),
            customer.utf8.allSatisfy(AppUserID.isPlain)
        else { return nil }
        return " " + uri[..<question] + "?" + kept.joined(separator: "&")
    }

    /// Drops every entry of an app (after a write for it went through).
    func invalidate(appID: String) {
        _ = entries.withLockedValue { $0.removeValue(forKey: appID) }
    }
}
