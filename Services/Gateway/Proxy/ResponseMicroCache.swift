import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import ShopkeeperCore

/// Keeps `GET` responses a service marked cacheable for a short time, per app and URI.
///
/// A service opts a response in with the internal header `x-shopkeeper-cache-ttl-ms` (the catalog sends its own
/// refresh interval, so a change still reaches every client within a second). Entries are per app, so a key never
/// sees another app's response; any write the gateway forwards for an app drops that app's entries, so a
/// developer reads their own change at once through the same gateway.
final class ResponseMicroCache: Sendable {
    /// The internal response header a service sets to make a `GET` response cacheable.
    static let ttlHeader = InternalHeader.cacheTTLMilliseconds

    struct Entry: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: ByteBuffer
        var etag: String?
        var expires: ContinuousClock.Instant
    }

    private let entries = NIOLockedValueBox([String: [String: Entry]]())
    private let maximumEntries: Int
    private let maximumTTL: Duration

    init(maximumEntries: Int = 10_000, maximumTTL: Duration = .seconds(1)) {
        self.maximumEntries = maximumEntries
        self.maximumTTL = maximumTTL
    }

    /// A fresh entry for this app and URI.
    func lookup(appID: String, uri: String, now: ContinuousClock.Instant = .now) -> Entry? {
        entries.withLockedValue { entries in
            guard let entry = entries[appID]?[uri], entry.expires > now else { return nil }
            return entry
        }
    }

    /// Stores a response for at most `ttl` (capped at one second).
    func store(appID: String, uri: String, entry: Entry, ttl: Duration, now: ContinuousClock.Instant = .now) {
        var entry = entry
        entry.expires = now + min(ttl, maximumTTL)
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
