/// The gateway's route table: for every path it serves, whether it answers requests itself or forwards them to a
/// service, and what it may answer itself in front of a service. Built once from the settings; the router
/// (``ProxyController``, ``buildRouter(settings:repository:routes:forwarder:shared:console:readiness:entitlements:)``)
/// and the connection pipeline (``ChannelProxy``) both read it.
struct RouteTable: Sendable {
    /// The prefixes forwarded to services.
    let forwarded: [ForwardedRoute]
    /// The paths the gateway answers itself, never forwarded even when a forwarded prefix covers them.
    static let own = OwnRoute.allCases

    /// The table of `settings`' routes. `deliversFiles`: the gateway reads the content volume (``FileDelivery``);
    /// `answersStoredReads`: it answers customer info reads from the stored info (``StoredCustomerReads``).
    init(settings: GatewaySettings, deliversFiles: Bool = false, answersStoredReads: Bool = false) {
        self.init(
            routes: settings.routes, keylessPrefixes: settings.keylessPrefixes,
            maxBodyBytes: settings.service.maxBodyBytes,
            bodyLimits: settings.bodyLimits,
            fileDeliveryServices: deliversFiles ? [GatewaySettings.contentService] : [],
            storedReadServices: answersStoredReads ? [StoredCustomerReads.service] : [])
    }

    init(
        routes: [UpstreamRoute], keylessPrefixes: Set<String>, maxBodyBytes: Int = 1 << 20,
        bodyLimits: [String: Int] = [:], fileDeliveryServices: Set<String> = [], storedReadServices: Set<String> = []
    ) {
        forwarded = routes.map { route in
            let keyless = keylessPrefixes.contains(route.prefix)
            var answers: Set<ForwardedRoute.LocalAnswer> = []
            // The micro-cache is per app: a keyless request has none.
            if !keyless { answers.insert(.microCache) }
            if !keyless && storedReadServices.contains(route.service) { answers.insert(.storedCustomerRead) }
            if fileDeliveryServices.contains(route.service) { answers.insert(.fileDelivery) }
            return ForwardedRoute(
                upstream: route, keyless: keyless, bodyLimit: bodyLimits[route.prefix] ?? maxBodyBytes,
                localAnswers: answers)
        }
    }
}

/// A prefix forwarded to its service, and what the gateway answers itself in front of it.
struct ForwardedRoute: Sendable {
    var upstream: UpstreamRoute
    /// Forwarded without an API key: the request carries its own proof (a store's signature, a signed URL).
    var keyless: Bool
    /// The largest request body forwarded (413 past it).
    var bodyLimit: Int
    var localAnswers: Set<LocalAnswer>

    /// An answer the gateway gives itself, when it can, instead of asking the service.
    enum LocalAnswer: Sendable, Hashable {
        /// A `GET` the service marked cacheable, from ``ResponseMicroCache`` (per app, never in a customer's name).
        case microCache
        /// A customer info read, from the info the entitlements service stored (``StoredCustomerReads``).
        case storedCustomerRead
        /// A download the service hands off, sent from the content volume (``FileDelivery``).
        case fileDelivery
    }
}

/// A path the gateway answers itself, each with a controller of its own.
enum OwnRoute: String, CaseIterable, Sendable {
    /// Liveness and readiness probes (``ServiceApplication``).
    case health = "/health"
    /// The operator's API (``OperatorController``).
    case operatorAPI = "/operator"
    /// An app's own keys (``AppKeyController``).
    case appKeys = "/v1/admin/keys"
    /// The customer boundary's settings and secrets (``CustomerBoundaryController``).
    case customerBoundary = "/v1/admin/customer-boundary"
    /// The audit log (``AuditLogController``).
    case auditLog = "/v1/admin/audit-log"
    /// The keys that sign the app's answers (``AnswerSigningController``).
    case answerSigning = "/v1/admin/answer-signing"
    /// The app's console users (``ConsoleUserController``).
    case consoleUsers = "/v1/admin/users"
    /// The catalog sync, joining the verifier's read of the store and the catalog's apply (``CatalogSyncController``).
    case catalogSync = "/v1/admin/catalog/sync"
    /// The console's files and sessions (``ConsoleFileController``, ``ConsoleSessionController``).
    case console = "/console"

    var prefix: String { rawValue }
}
