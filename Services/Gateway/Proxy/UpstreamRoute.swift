import Foundation
import ShopkeeperCore

/// One row of the routing table: requests whose path starts with `prefix` go to `baseURL`.
struct UpstreamRoute: Sendable, Hashable {
    /// A path prefix such as `/v1/catalog`; matches the path itself and everything below it. A `*` segment matches
    /// any one segment (`/v1/customers/*/restore`); a longer, more specific prefix wins over a shorter one.
    var prefix: String
    /// Name used in errors, logs and the readiness report.
    var service: String
    /// Where the service listens, e.g. `http://127.0.0.1:8081`.
    let baseURL: URL

    /// Host, port and path prefix of ``baseURL`` (worked out once: `URL`'s accessors parse on every call).
    let host: String
    let port: Int
    let basePath: String
    /// The `Host` header of requests to this route's service.
    let hostHeader: String
    /// The prefix's segments (`["v1", "customers", "*", "restore"]`).
    let segments: [Substring]

    init(prefix: String, service: String, baseURL: URL) {
        self.prefix = prefix
        self.service = service
        self.baseURL = baseURL
        host = baseURL.host ?? "127.0.0.1"
        port = baseURL.port ?? 80
        var path = baseURL.path
        while path.hasSuffix("/") { path.removeLast() }
        basePath = path
        hostHeader = "\(host):\(port)"
        segments = prefix.split(separator: "/")
    }

    /// Whether `path` is this route's prefix or lies below it (`*` matching any one segment).
    func matches(_ path: Substring) -> Bool {
        matches(segments: path.split(separator: "/"))
    }

    /// ``matches(_:)`` for a path already split into its segments.
    func matches(segments path: [Substring]) -> Bool {
        guard path.count >= segments.count else { return false }
        for (segment, expected) in zip(path, segments) where expected != "*" && expected != segment { return false }
        return true
    }

    /// Whether the prefix has a `*` segment.
    var hasWildcard: Bool { prefix.split(separator: "/").contains("*") }

    /// The prefixes forwarded without an API key unless `SHOPKEEPER_GATEWAY_KEYLESS_PREFIXES` says otherwise: store
    /// notifications (the store's signature is the proof) and downloads (the URL's signature is the proof).
    static let defaultKeylessPrefixes = "/v1/notifications,/v1/downloads"

    /// Request body limits of prefixes that take more than `SHOPKEEPER_MAX_BODY_BYTES` unless
    /// `SHOPKEEPER_GATEWAY_BODY_LIMITS` says otherwise: content pack uploads (streamed, one file per request; the
    /// content service applies its own, smaller limits), and exchange rate files (ECB's whole history is about 7 MB;
    /// entitlements takes up to 32 MB).
    static let defaultBodyLimits = "/v1/admin/content=\(Int64(64) << 30),/v1/admin/exchange-rates=\(32 << 20)"

    /// The default table, from each service's URL.
    static func defaults(
        catalogURL: URL, verifierURL: URL, entitlementsURL: URL, contentURL: URL? = nil, subscriptionsURL: URL? = nil
    ) -> [UpstreamRoute] {
        var routes = [
            UpstreamRoute(prefix: "/v1/catalog", service: "catalog", baseURL: catalogURL),
            UpstreamRoute(prefix: "/v1/admin/products", service: "catalog", baseURL: catalogURL),
            UpstreamRoute(prefix: "/v1/admin/catalog", service: "catalog", baseURL: catalogURL),
            UpstreamRoute(prefix: "/v1/offerings", service: "catalog", baseURL: catalogURL),
            UpstreamRoute(prefix: "/v1/admin/offerings", service: "catalog", baseURL: catalogURL),
            UpstreamRoute(prefix: "/v1/admin/offering-rules", service: "catalog", baseURL: catalogURL),
            UpstreamRoute(prefix: "/v1/admin/experiments", service: "catalog", baseURL: catalogURL),
            UpstreamRoute(prefix: "/v1/purchases", service: "verifier", baseURL: verifierURL),
            UpstreamRoute(prefix: "/v1/receipts", service: "verifier", baseURL: verifierURL),
            UpstreamRoute(prefix: "/v1/admin/stores", service: "verifier", baseURL: verifierURL),
            UpstreamRoute(prefix: "/v1/admin/verification-attempts", service: "verifier", baseURL: verifierURL),
            // Store notifications carry the store's own proof (a signature, a push token), not an API key.
            UpstreamRoute(prefix: "/v1/notifications", service: "verifier", baseURL: verifierURL),
            // A restore verifies proofs first: the verifier takes it and hands the facts to entitlements.
            UpstreamRoute(prefix: "/v1/customers/*/restore", service: "verifier", baseURL: verifierURL),
            // Offers are signed with the app's In-App Purchase key, which only the verifier holds.
            UpstreamRoute(prefix: "/v1/customers/*/offer-signatures", service: "verifier", baseURL: verifierURL),
            UpstreamRoute(prefix: "/v1/customers/*/checkout", service: "verifier", baseURL: verifierURL),
            UpstreamRoute(prefix: "/v1/customers/*/portal", service: "verifier", baseURL: verifierURL),
            UpstreamRoute(prefix: "/v1/customers/*/subscriptions", service: "verifier", baseURL: verifierURL),
            UpstreamRoute(prefix: "/v1/customers", service: "entitlements", baseURL: entitlementsURL),
            UpstreamRoute(prefix: "/v1/admin/entitlements", service: "entitlements", baseURL: entitlementsURL),
            UpstreamRoute(prefix: "/v1/admin/events", service: "entitlements", baseURL: entitlementsURL),
            UpstreamRoute(prefix: "/v1/admin/webhook-endpoints", service: "entitlements", baseURL: entitlementsURL),
            UpstreamRoute(prefix: "/v1/admin/purchases", service: "entitlements", baseURL: entitlementsURL),
            UpstreamRoute(prefix: "/v1/admin/customers", service: "entitlements", baseURL: entitlementsURL),
            UpstreamRoute(prefix: "/v1/admin/aliases", service: "entitlements", baseURL: entitlementsURL),
            // The exchange rates the charts convert with belong with the sales they convert.
            UpstreamRoute(prefix: "/v1/admin/exchange-rates", service: "entitlements", baseURL: entitlementsURL),
            // Reports belong to the service that owns their facts: sales, usage and consumables to entitlements.
            UpstreamRoute(prefix: "/v1/admin/reports", service: "entitlements", baseURL: entitlementsURL),
            // Experiments' results: the catalog holds the experiments and their exposures.
            UpstreamRoute(prefix: "/v1/admin/reports/experiments", service: "catalog", baseURL: catalogURL),
        ]
        if let subscriptionsURL {
            routes.append(
                UpstreamRoute(
                    prefix: "/v1/admin/reports/subscriptions", service: "subscriptions", baseURL: subscriptionsURL))
        }
        if let contentURL {
            routes += [
                UpstreamRoute(prefix: "/v1/content", service: "content", baseURL: contentURL),
                // Download URLs carry their own signature (keyless by default).
                UpstreamRoute(prefix: "/v1/downloads", service: "content", baseURL: contentURL),
                UpstreamRoute(prefix: "/v1/admin/content", service: "content", baseURL: contentURL),
                UpstreamRoute(prefix: "/v1/customers/*/content", service: "content", baseURL: contentURL),
                UpstreamRoute(prefix: "/v1/admin/reports/content", service: "content", baseURL: contentURL),
            ]
        }
        return routes
    }

    /// Parses `SHOPKEEPER_GATEWAY_ROUTES`: comma-separated `prefix=service@url` entries.
    static func parse(_ text: String, variable: String) throws(ConfigurationError) -> [UpstreamRoute] {
        var routes: [UpstreamRoute] = []
        for entry in text.split(separator: ",") {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let target = parts.count == 2 ? parts[1].split(separator: "@", maxSplits: 1).map(String.init) : []
            guard parts.count == 2, parts[0].hasPrefix("/"), !parts[0].hasSuffix("/"), target.count == 2 else {
                throw ConfigurationError(
                    variable: variable,
                    reason: "entries must look like /v1/catalog=catalog@http://127.0.0.1:8081, got '\(entry)'"
                )
            }
            let url = try EnvironmentReader.parseHTTPURL(target[1], variable: variable)
            routes.append(UpstreamRoute(prefix: parts[0], service: target[0], baseURL: url))
        }
        return routes
    }
}
