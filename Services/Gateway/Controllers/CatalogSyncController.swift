import AsyncHTTPClient
import Hummingbird
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /v1/admin/catalog/sync` (secret key): the gateway joins the two owners of a catalog sync, so that neither
/// calls the other and the call graph stays a tree. The verifier, which holds the store credentials, reads the
/// store's catalog (`/internal/v1/stores/{store}/catalog`); the catalog, which owns the products, compares and applies
/// what the operator accepted (`/internal/v1/catalog/sync`). A problem of either is passed on as it is.
struct CatalogSyncController {
    let verifier: InternalClient
    let catalog: InternalClient
    let maxBodyBytes: Int

    /// The stores a sync can read: App Store Connect and Google Play.
    static let stores: Set<String> = ["apple", "google"]

    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .post { request, context in
                let appID = try context.secretKeyApp()
                let body = try await JSONBody.decode(CatalogSyncRequest.self, from: request, limit: maxBodyBytes)
                guard Self.stores.contains(body.store) else {
                    throw RequestError.invalid("/store", "must be apple or google")
                }
                let storeCatalog: StoreCatalog = try await verifier.post(
                    "/internal/v1/stores/\(body.store)/catalog", body: EmptyBody(), appID: appID, keyKind: .secret,
                    requestID: context.requestID)
                let result: CatalogSyncResult = try await catalog.post(
                    "/internal/v1/catalog/sync", body: CatalogSyncCommand(request: body, storeCatalog: storeCatalog),
                    appID: appID, keyKind: .secret, requestID: context.requestID)
                return try JSONBody.response(result)
            }
    }

    /// The verifier's read takes no body.
    private struct EmptyBody: Encodable {}
}

/// The signed clients of the verifier's and the catalog's internal APIs, for ``CatalogSyncController``, when routes go
/// to both services.
func catalogSyncClients(settings: GatewaySettings, httpClient: HTTPClient) -> (
    verifier: InternalClient, catalog: InternalClient
)? {
    func client(_ service: String) -> InternalClient? {
        settings.routes.first { $0.service == service }.map { route in
            InternalClient(
                service: route.service, baseURL: route.baseURL, httpClient: httpClient,
                signature: settings.service.internalSignature, timeout: .seconds(60), maxResponseBytes: 16 << 20)
        }
    }
    guard let verifier = client(GatewaySettings.verifierService), let catalog = client(GatewaySettings.catalogService)
    else { return nil }
    return (verifier, catalog)
}
