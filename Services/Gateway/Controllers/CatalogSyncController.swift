import AsyncHTTPClient
import Hummingbird
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /v1/admin/catalog/sync` and `GET /v1/admin/catalog/sync/last` (secret key): the gateway joins the two owners
/// of a catalog sync (``CatalogSyncRunner``), so that neither calls the other and the call graph stays a tree. A
/// problem of either is passed on as it is.
struct CatalogSyncController {
    let runner: CatalogSyncRunner
    let maxBodyBytes: Int

    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .post { request, context in
                let appID = try context.secretKeyApp()
                let body = try await JSONBody.decode(CatalogSyncRequest.self, from: request, limit: maxBodyBytes)
                guard CatalogSyncRunner.stores.contains(body.store) else {
                    throw RequestError.invalid("/store", "must be apple or google")
                }
                return try JSONBody.response(
                    try await runner.sync(appID: appID, request: body, trigger: .manual, requestID: context.requestID))
            }
            .get("last") { request, context in
                let appID = try context.secretKeyApp()
                let store = request.uri.queryParameters["store"].map(String.init)
                if let store, !CatalogSyncRunner.stores.contains(store) {
                    throw RequestError.invalidQuery([FieldProblem(pointer: "?store", detail: "must be apple or google")]
                    )
                }
                return try JSONBody.response(
                    try await runner.last(appID: appID, store: store, requestID: context.requestID))
            }
    }
}

/// One catalog sync, joined by the gateway: the verifier, which holds the store credentials, reads the store's
/// catalog (`/internal/v1/stores/{store}/catalog`); the catalog, which owns the products, compares, applies what was
/// accepted and records the sync (`/internal/v1/catalog/sync`). Used by the admin route and the scheduled sync
/// (``CatalogSyncSchedule``).
struct CatalogSyncRunner: Sendable {
    let verifier: InternalClient
    let catalog: InternalClient

    /// The stores a sync can read: App Store Connect and Google Play.
    static let stores: Set<String> = ["apple", "google"]

    /// Reads the store's catalog and hands it, with `request`, to the catalog.
    func sync(appID: String, request: CatalogSyncRequest, trigger: CatalogSyncTrigger, requestID: String?)
        async throws -> CatalogSyncResult
    {
        let storeCatalog: StoreCatalog = try await verifier.post(
            "/internal/v1/stores/\(request.store)/catalog", body: EmptyBody(), appID: appID, keyKind: .secret,
            requestID: requestID)
        return try await catalog.post(
            "/internal/v1/catalog/sync",
            body: CatalogSyncCommand(request: request, storeCatalog: storeCatalog, trigger: trigger),
            appID: appID, keyKind: .secret, requestID: requestID)
    }

    /// The app's last sync of `store` (of either, when `nil`), as the catalog recorded it.
    func last(appID: String, store: String?, requestID: String?) async throws -> CatalogSyncResult {
        try await catalog.post(
            "/internal/v1/catalog/sync/last", body: CatalogSyncLastQuery(store: store), appID: appID,
            keyKind: .secret, requestID: requestID)
    }

    /// The verifier's read takes no body.
    private struct EmptyBody: Encodable {}
}

/// The runner of catalog syncs, when routes go to both the verifier and the catalog.
func catalogSyncRunner(settings: GatewaySettings, httpClient: HTTPClient) -> CatalogSyncRunner? {
    func client(_ service: String) -> InternalClient? {
        settings.routes.first { $0.service == service }.map { route in
            InternalClient(
                service: route.service, baseURL: route.baseURL, httpClient: httpClient,
                signature: settings.service.internalSignature, timeout: .seconds(60), maxResponseBytes: 16 << 20)
        }
    }
    guard let verifier = client(GatewaySettings.verifierService), let catalog = client(GatewaySettings.catalogService)
    else { return nil }
    return CatalogSyncRunner(verifier: verifier, catalog: catalog)
}
