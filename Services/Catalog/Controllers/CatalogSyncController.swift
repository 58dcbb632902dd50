import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /internal/v1/catalog/sync`: the catalog's side of `POST /v1/admin/catalog/sync`. The gateway brings the
/// store's catalog (read by the verifier, which holds the store credentials) with the operator's request; the
/// catalog compares it with the app's products (``CatalogSyncPlan``), applies what was accepted unless it is a dry
/// run, and answers every difference with its outcome.
struct CatalogSyncController {
    let repository: any ProductRepository
    let cache: CatalogCache
    /// Store catalogs may be large: every product with every territory's price.
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post("/internal/v1/catalog/sync") { request, context in
                let caller = try context.requireSecretCaller()
                let command = try await JSONBody.decode(CatalogSyncCommand.self, from: request, limit: maxBodyBytes)
                let platform = command.storeCatalog.platform
                let snapshot = try await repository.snapshot(appID: caller.appID)
                let plan = CatalogSyncPlan(
                    store: command.storeCatalog, products: snapshot.products,
                    prices: try await repository.storePrices(appID: caller.appID, platform: platform),
                    accept: command.request.accept, apply: !command.request.dryRun)
                if !command.request.dryRun {
                    try await repository.applySync(appID: caller.appID, platform: platform, writes: plan.writes)
                    cache.invalidate(appID: caller.appID)
                }
                return try JSONBody.response(
                    CatalogSyncResult(
                        store: command.request.store, dryRun: command.request.dryRun, changes: plan.changes,
                        applied: plan.changes.count { $0.outcome == .applied || $0.outcome == .kept }))
            }
    }
}
