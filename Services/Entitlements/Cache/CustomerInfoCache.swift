import Foundation
import NIOConcurrencyHelpers
import ShopkeeperHTTP

/// Rendered customer info kept in memory, so a read costs no database work while nothing changed.
///
/// Freshness rests on PostgreSQL notifications: every change to a customer notifies its id at commit
/// (`entitlements.notify_customer_change`), ``CustomerChangeListener`` drops that customer's entries, and while the
/// listener is not connected nothing is served from or stored in the cache. Three more rules close the gaps:
/// - a render that started before an invalidation of its customer is not stored (it may hold the old state);
/// - an entry lives at most ``ttl`` (catalog changes to entitlement ids reach readers within it), and never past the
///   moment the info changes by itself (an end or a start passing);
/// - a replica drops the entries of a customer it changed as soon as the change is committed, so its own callers
///   read their writes even before the notification arrives.
final class CustomerInfoCache: Sendable {
    /// An app and one of its customer ids.
    struct Key: Hashable, Sendable {
        var appID: String
        var appUserID: String
    }

    private struct Entry {
        var customerID: UUID
        var document: CustomerInfoDocument
        var expires: Date
    }

    private struct State {
        var live = false
        /// Bumped by every invalidation; renders take it as their ticket.
        var sequence: UInt64 = 0
        /// Entries made from renders with an older ticket are refused.
        var flushedAt: UInt64 = 0
        var entries: [Key: Entry] = [:]
        var keysByCustomer: [UUID: Set<Key>] = [:]
        var invalidatedAt: [UUID: UInt64] = [:]
    }

    private let state = NIOLockedValueBox(State())
    /// Longest life of an entry; zero turns the cache off.
    let ttl: TimeInterval
    let maximumEntries: Int
    /// Lookups while the cache is on: served from memory, or rendered from the database.
    private let metrics = CacheMetrics(cache: "customer_info")

    init(ttl: Duration, maximumEntries: Int) {
        self.ttl = Double(ttl.components.seconds) + Double(ttl.components.attoseconds) / 1e18
        self.maximumEntries = maximumEntries
    }

    var isEnabled: Bool { ttl > 0 }

    /// The cached info, if fresh and the listener is connected.
    func lookup(_ key: Key, now: Date = Date()) -> CustomerInfoDocument? {
        guard isEnabled else { return nil }
        let found = state.withLockedValue { state -> CustomerInfoDocument? in
            guard state.live, let entry = state.entries[key], entry.expires > now else { return nil }
            return entry.document
        }
        metrics.record(hit: found != nil)
        return found
    }

    /// The ticket a render takes before reading the database.
    func ticket() -> UInt64 {
        state.withLockedValue { $0.sequence }
    }

    /// Keeps a render unless its customer changed (or the cache was flushed) since `ticket` was taken.
    func store(
        _ document: CustomerInfoDocument, for key: Key, customerID: UUID, nextChange: Date?, ticket: UInt64,
        now: Date = Date()
    ) {
        guard isEnabled else { return }
        let expires = min(now.addingTimeInterval(ttl), nextChange ?? .distantFuture)
        state.withLockedValue { state in
            guard state.live, state.flushedAt <= ticket, (state.invalidatedAt[customerID] ?? 0) <= ticket else {
                return
            }
            if state.entries.count >= maximumEntries || state.invalidatedAt.count >= maximumEntries {
                Self.flush(&state)
                return
            }
            state.entries[key] = Entry(customerID: customerID, document: document, expires: expires)
            state.keysByCustomer[customerID, default: []].insert(key)
        }
    }

    /// Drops every entry of these customers (a change was committed or notified).
    func invalidate(customerIDs: some Sequence<UUID>) {
        state.withLockedValue { state in
            state.sequence += 1
            for id in customerIDs {
                state.invalidatedAt[id] = state.sequence
                for key in state.keysByCustomer.removeValue(forKey: id) ?? [] {
                    state.entries.removeValue(forKey: key)
                }
            }
        }
    }

    /// Drops the entries of whichever customer `key` names (after a write addressed by that id).
    func invalidate(_ key: Key) {
        state.withLockedValue { state in
            state.sequence += 1
            guard let customerID = state.entries[key]?.customerID else { return }
            state.invalidatedAt[customerID] = state.sequence
            for key in state.keysByCustomer.removeValue(forKey: customerID) ?? [] {
                state.entries.removeValue(forKey: key)
            }
        }
    }

    /// The listener connected (everything cached before may have missed changes) or was lost.
    func setLive(_ live: Bool) {
        state.withLockedValue { state in
            state.live = live
            Self.flush(&state)
        }
    }

    private static func flush(_ state: inout State) {
        state.sequence += 1
        state.flushedAt = state.sequence
        state.entries.removeAll(keepingCapacity: true)
        state.keysByCustomer.removeAll(keepingCapacity: true)
        state.invalidatedAt.removeAll(keepingCapacity: true)
    }
}
