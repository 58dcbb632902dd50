import Foundation
import Logging
import ServiceLifecycle
import ShopkeeperClients
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// The scheduled catalog sync (`SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS`, off by default): each app is synced with
/// each store once per interval, as `POST /v1/admin/catalog/sync` would with `accept: [review_state, price]`, so
/// review states and prices follow the stores on their own; new products and deletions at the store are only
/// recorded as proposed, in the sync the catalog keeps as the store's last (`GET /v1/admin/catalog/sync/last`).
///
/// Every replica runs it; the turns are rows of `gateway.catalog_sync_schedule` (``CatalogSyncTurns``), one per app
/// and store, claimed with `FOR UPDATE SKIP LOCKED` and moved a lease ahead by the claim, an interval ahead by the
/// run's end: one replica runs an app's sync per interval. An app without credentials for a store (the verifier
/// answers `store_not_configured` or `connect_api_key_missing`) is passed over until its next turn.
struct CatalogSyncSchedule: PolledService {
    static let pollerName = "catalog_sync_schedule"
    /// What a scheduled sync applies.
    static let accepted = [CatalogSyncChangeKind.reviewState.rawValue, CatalogSyncChangeKind.price.rawValue]
    /// The verifier's answers for an app without the store's credentials: nothing to sync.
    static let notConfigured: Set<String> = ["store_not_configured", "connect_api_key_missing"]

    let turns: any CatalogSyncTurns
    let runner: CatalogSyncRunner
    /// How often each app is synced with each store.
    let interval: Duration
    let startup: StartupGate
    let logger: Logger
    /// Turns claimed at once.
    var batchSize = 20
    /// How long a claimed turn is this replica's before another may take it (a sync reads a whole store catalog).
    var lease: Duration = .seconds(600)

    func claim() async throws -> ClaimedBatch<CatalogSyncTurn> {
        ClaimedBatch(try await turns.claim(limit: batchSize, lease: lease), limit: batchSize)
    }

    /// Runs one app's sync with one store and ends the turn, due again an interval later.
    func process(_ turn: CatalogSyncTurn) async {
        let outcome = await run(turn)
        do {
            // Even when shutting down: the sync ran (or failed); the next is due an interval later.
            try await uncancelled { try await turns.finish(turn, after: interval, outcome: outcome) }
        } catch {
            // The lease runs out and the turn is due again then.
            logger.warning(
                "could not end a scheduled catalog sync's turn", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Hands turns not run yet back (shutting down): due again at once.
    func release(_ claimed: [CatalogSyncTurn]) async throws {
        for turn in claimed { try await turns.handBack(turn) }
    }

    /// Syncs; answers a word on how it went (`applied 2 of 3`, `not configured`, or the failure).
    func run(_ turn: CatalogSyncTurn) async -> String {
        do {
            let result = try await runner.sync(
                appID: turn.appID,
                request: CatalogSyncRequest(store: turn.store, dryRun: false, accept: Self.accepted),
                trigger: .scheduled, requestID: nil)
            if result.applied > 0 {
                logger.info(
                    "scheduled catalog sync applied changes",
                    metadata: ["app_id": "\(turn.appID)", "store": "\(turn.store)", "applied": "\(result.applied)"])
            }
            return "applied \(result.applied) of \(result.changes.count)"
        } catch let problem as RemoteProblem where Self.notConfigured.contains(problem.code) {
            return "not configured"
        } catch {
            logger.warning(
                "scheduled catalog sync failed; trying again next interval",
                metadata: [
                    "app_id": "\(turn.appID)", "store": "\(turn.store)", "error": "\(String(reflecting: error))",
                ])
            return "failed: \(error)"
        }
    }
}
