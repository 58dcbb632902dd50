import Crypto
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// A rendered catalog response: its bytes and strong ETag.
struct RenderedCatalog: Sendable {
    var body: ByteBuffer
    var etag: String

    /// The answer to `request` (`GET` or `HEAD`): `304` when `If-None-Match` matches. `gatewayCacheTTL`: how long the
    /// gateway's micro-cache may keep it (`nil`: not at all, for an answer that depends on the customer);
    /// `customerNeutral`: the request names a customer the answer read nothing of, so the gateway may keep one copy
    /// for every customer asking the same query.
    func response(to request: Request, gatewayCacheTTL: Duration?, customerNeutral: Bool = false) -> Response {
        var headers: HTTPFields = [.eTag: etag, .cacheControl: "private, no-cache", .vary: "Authorization"]
        if let ifNoneMatch = request.headers[.ifNoneMatch], ETagMatch.matches(ifNoneMatch, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        if let gatewayCacheTTL {
            headers[InternalHeader.cacheTTLMilliseconds.fieldName] = String(gatewayCacheTTL.milliseconds)
            if customerNeutral { headers[InternalHeader.cacheCustomerNeutral.fieldName] = "1" }
        }
        headers[.contentLength] = String(body.readableBytes)
        return Response(
            status: .ok, headers: headers,
            body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: body))
    }
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
        /// For an offerings answer: the offering it shows as current and the rule that chose it.
        var offerings: OfferingsPick?
    }

    /// Which offering an offerings answer shows as current, and why.
    struct OfferingsPick: Hashable {
        var current: String?
        var ruleID: String?
        /// The experiment variant that chose `current`, when one did.
        var experiment: ExperimentPick? = nil
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
        let snapshot = try await snapshot(appID: appID)
        return try memo(RenderKey(appID: appID, revision: snapshot.revision, query: query)) {
            CatalogView(
                platform: query.platform,
                build: query.build,
                appVersion: query.appVersion.description,
                variant: query.variant,
                locale: query.locale,
                products: CatalogVisibility.items(of: snapshot.products, for: query, prices: snapshot.storePrices)
            )
        }
    }

    /// The offerings answer for `query` showing `pick`, from memory when the revision has not changed: answers of
    /// different customers who get the same offering are the same bytes.
    func renderedOfferings(snapshot: CatalogSnapshot, appID: String, query: CatalogQuery, pick: OfferingsPick) throws
        -> RenderedCatalog
    {
        try memo(RenderKey(appID: appID, revision: snapshot.revision, query: query, offerings: pick)) {
            OfferingsRenderer.view(
                snapshot: snapshot, query: query, current: pick.current, ruleID: pick.ruleID,
                experiment: pick.experiment)
        }
    }

    private func memo<View: Encodable>(_ key: RenderKey, render: () -> View) throws -> RenderedCatalog {
        if let hit = state.withLockedValue({ $0.rendered[key] }) { return hit }
        let data = try JSONBody.encode(render())
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

    /// The app's products, offerings and rules, checked against the database's revision at most every
    /// `refreshInterval`.
    func snapshot(appID: String) async throws -> CatalogSnapshot {
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
