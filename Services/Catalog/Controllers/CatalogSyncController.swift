import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /internal/v1/catalog/sync`: the catalog's side of `POST /v1/admin/catalog/sync` and of the gateway's
/// scheduled sync. The gateway brings the store's catalog (read by the verifier, which holds the store credentials)
/// with the request; the catalog records the store's prices in their history (dry run or not: they are the store's,
/// whatever the catalog accepts), compares it with the app's products (``CatalogSyncPlan``), applies what was accepted
/// unless it is a dry run, keeps the result as the store's last sync, and answers every difference with its outcome.
///
/// `POST /internal/v1/catalog/sync/last`: the catalog's side of `GET /v1/admin/catalog/sync/last` (the gateway
/// answers the public route, under its own `/v1/admin/catalog/sync`): that last sync (of either store: the newest).
struct CatalogSyncController {
    let repository: any ProductRepository
    let log: CatalogSyncLog
    let cache: CatalogCache
    /// Store catalogs may be large: every product with every territory's price.
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post("/internal/v1/catalog/sync") { request, context in
                let caller = try context.requireSecretCaller()
                let command = try await JSONBody.decode(CatalogSyncCommand.self, from: request, limit: maxBodyBytes)
                return try JSONBody.response(try await sync(command, appID: caller.appID))
            }
            .post("/internal/v1/catalog/sync/last") { request, context in
                let caller = try context.requireSecretCaller()
                let query = try await JSONBody.decode(CatalogSyncLastQuery.self, from: request, limit: 4096)
                guard let last = try await log.last(appID: caller.appID, store: query.store) else {
                    throw CatalogError.syncNotFound(query.store)
                }
                return try JSONBody.response(last)
            }
    }

    /// Compares, applies what was accepted (unless a dry run), and records.
    func sync(_ command: CatalogSyncCommand, appID: String) async throws -> CatalogSyncResult {
        let platform = command.storeCatalog.platform
        try await log.recordPrices(appID: appID, store: command.storeCatalog)
        let snapshot = try await repository.snapshot(appID: appID)
        let plan = CatalogSyncPlan(
            store: command.storeCatalog, products: snapshot.products,
            prices: try await repository.storePrices(appID: appID, platform: platform),
            accept: command.request.accept, apply: !command.request.dryRun)
        if !command.request.dryRun {
            try await repository.applySync(appID: appID, platform: platform, writes: plan.writes)
            cache.invalidate(appID: appID)
        }
        let result = CatalogSyncResult(
            store: command.request.store, dryRun: command.request.dryRun, changes: plan.changes,
            applied: plan.changes.count { $0.outcome == .applied || $0.outcome == .kept }, trigger: command.trigger,
            syncedAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await log.record(appID: appID, result: result)
        return result
    }
}
