import Foundation
import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperModels

/// What the catalog keeps of its syncs (migrations `0009` and `0010`): every price a store listed, with the time it
/// came into force (`catalog.store_price_history`), and each store's last sync with its diff and outcomes
/// (`catalog.sync_runs`).
struct CatalogSyncLog: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Records the prices `store` lists that differ from the price in force for their store product and territory
    /// (or have none yet), in force from now. In one statement: a repeat of the same listing adds nothing, and two
    /// syncs at once at worst record the same price twice, a second apart, which prices every sale the same.
    func recordPrices(appID: String, store: StoreCatalog) async throws {
        var ids: [String] = []
        var territories: [String] = []
        var currencies: [String] = []
        var prices: [String] = []
        for product in store.products {
            for price in product.prices where Decimal(string: price.price) != nil {
                ids.append(product.storeProductID)
                territories.append(price.territory)
                currencies.append(price.currency)
                prices.append(price.price)
            }
        }
        guard !ids.isEmpty else { return }
        try await client.query(
            """
            INSERT INTO catalog.store_price_history
                (app_id, platform, store_product_id, territory, currency, price, effective_at)
            SELECT \(appID), \(store.platform.rawValue), s.id, s.territory, s.currency, s.price::numeric, now()
            FROM unnest(\(ids)::text[], \(territories)::text[], \(currencies)::text[], \(prices)::text[])
                AS s(id, territory, currency, price)
            WHERE NOT EXISTS (
                SELECT 1 FROM (
                    SELECT h.currency, h.price FROM catalog.store_price_history h
                    WHERE h.app_id = \(appID) AND h.platform = \(store.platform.rawValue)
                      AND h.store_product_id = s.id AND h.territory = s.territory
                    ORDER BY h.effective_at DESC LIMIT 1
                ) current
                WHERE current.currency = s.currency AND current.price = s.price::numeric)
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Keeps `result` as the app's last sync of its store (replacing the one before).
    func record(appID: String, result: CatalogSyncResult) async throws {
        let changes = String(decoding: try JSONBody.encode(result.changes), as: UTF8.self)
        try await client.query(
            """
            INSERT INTO catalog.sync_runs (app_id, store, trigger, dry_run, applied, changes, synced_at)
            VALUES (\(appID), \(result.store), \(result.trigger.rawValue), \(result.dryRun), \(result.applied),
                    \(changes)::jsonb, \(result.syncedAt))
            ON CONFLICT (app_id, store) DO UPDATE
            SET trigger = excluded.trigger, dry_run = excluded.dry_run, applied = excluded.applied,
                changes = excluded.changes, synced_at = excluded.synced_at
            """, logger: logger)
    }

    /// The app's last sync of `store` (of any store when `nil`: the newest), or `nil` before the first.
    func last(appID: String, store: String?) async throws -> CatalogSyncResult? {
        let rows = try await client.query(
            """
            SELECT store, trigger, dry_run, applied, changes::text, synced_at FROM catalog.sync_runs
            WHERE app_id = \(appID) AND (\(store)::text IS NULL OR store = \(store)::text)
            ORDER BY synced_at DESC, store
            LIMIT 1
            """, logger: logger)
        for try await (store, trigger, dryRun, applied, changes, syncedAt) in rows.decode(
            (String, String, Bool, Int, String, Date).self)
        {
            return CatalogSyncResult(
                store: store, dryRun: dryRun,
                changes: try JSONBody.decode([CatalogSyncChange].self, from: Data(changes.utf8)), applied: applied,
                trigger: CatalogSyncTrigger(rawValue: trigger) ?? .manual, syncedAt: syncedAt)
        }
        return nil
    }
}
