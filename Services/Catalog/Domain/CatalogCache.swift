import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// A rendered catalog response: its bytes and strong ETag.
struct RenderedCatalog: Sendable {
    var body: ByteBuffer
    var etag: String
}

/// Keeps each app's catalog in memory and checks the database revision at most every `refreshInterval`, so a
/// change made through any replica shows through every replica within that interval plus one query.
///
/// Rendered responses are kept per (revision, query): a repeated catalog request costs a lock and a lookup.
/// A lock rather than an actor: lookups are tiny and must not queue behind one another.
final class CatalogCache: Sendable {
    private struct AppEntry {
        var snapshot: CatalogSnapshot
        var checkedAt: ContinuousClock.Instant
    }

    private struct RenderKey: Hashable {
        var appID: String
        var revision: Int64
        var query: CatalogQuery
    }

    private struct State {
        var apps: [String: AppEntry] = [:]
        var rendered: [RenderKey: RenderedCatalog] = [:]
    }

    private let repository: any ProductRepository
    private let refreshInterval: Duration
    private let state = NIOLockedValueBox(State())
    private let maximumRendered = 10_000

    init(repository: any ProductRepository, refreshInterval: Duration) {
        self.repository = repository
        self.refreshInterval = refreshInterval
    }

    /// The response for `query`, from memory when the app's revision has not changed.
    func rendered(appID: String, query: CatalogQuery) async throws -> RenderedCatalog {
        let snapshot = try await currentSnapshot(appID: appID)
        let key = RenderKey(appID: appID, revision: snapshot.revision, query: query)
        if let hit = state.withLockedValue({ $0.rendered[key] }) { return hit }
        let view = CatalogView(
            platform: query.platform,
            build: query.build,
            appVersion: query.appVersion.description,
            variant: query.variant,
            locale: query.locale,
            products: CatalogVisibility.items(of: snapshot.products, for: query)
        )
        let data = try JSONBody.encode(view)
        let etag = "\"" + SHA256.hash(data: data).prefix(16).hexString + "\""
        let rendered = RenderedCatalog(body: ByteBuffer(bytes: data), etag: etag)
        state.withLockedValue { state in
            if state.rendered.count >= maximumRendered { state.rendered.removeAll(keepingCapacity: true) }
            state.rendered[key] = rendered
        }
        return rendered
    }

    /// Forgets what is cached for an app; called after this replica writes, so its own change shows at once.
    func invalidate(appID: String) {
        state.withLockedValue { state in
            state.apps[appID] = nil
        }
    }

    private func currentSnapshot(appID: String) async throws -> CatalogSnapshot {
        let now = ContinuousClock.now
        let cached = state.withLockedValue { $0.apps[appID] }
        if let cached, now - cached.checkedAt < refreshInterval {
            return cached.snapshot
        }
        if let cached, try await repository.revision(appID: appID) == cached.snapshot.revision {
            state.withLockedValue { $0.apps[appID]?.checkedAt = now }
            return cached.snapshot
        }
        let snapshot = try await repository.snapshot(appID: appID)
        state.withLockedValue { state in
            if state.apps[appID].map({ $0.snapshot.revision <= snapshot.revision }) ?? true {
                state.apps[appID] = AppEntry(snapshot: snapshot, checkedAt: now)
            }
            state.rendered = state.rendered.filter { $0.key.appID != appID || $0.key.revision >= snapshot.revision }
        }
        return snapshot
    }
}
