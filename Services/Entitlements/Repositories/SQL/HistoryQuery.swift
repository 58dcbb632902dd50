import Foundation
import Logging
import PostgresNIO

/// Renders a customer's history as JSON in one statement.
///
/// The history covers the customer and every customer merged into it (`merged_into`): their store transactions,
/// ledger lines and events were written for the old customer and stay there. Each list is newest first and holds at
/// most ``limit`` entries.
enum HistoryQuery {
    /// Most entries of each list.
    static let limit = 500

    /// The history document: `customer` (the given info JSON), `transactions`, `subscription_periods` (the
    /// subscriptions service's periods of the subscriptions the customer owns: their timeline), `ledger`, `grants`,
    /// `devices` and `events`.
    static func render(
        customerID: UUID, info: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> String {
        let limit: Int = Self.limit
        let rows = try await connection.checkedQuery(
            """
            WITH family AS (
                SELECT customer_id FROM entitlements.customers
                WHERE customer_id = \(customerID) OR merged_into = \(customerID)
            ), owned AS (
                SELECT store, original_transaction_id FROM entitlements.purchases WHERE customer_id = \(customerID)
            ), t AS (
                SELECT t.*, p.product_id, p.product_type, p.revoked_at FROM entitlements.transactions t
                LEFT JOIN entitlements.purchases p
                    ON p.store = t.store AND p.original_transaction_id = t.original_transaction_id
                WHERE t.customer_id IN (SELECT customer_id FROM family)
                   OR (t.store, t.original_transaction_id) IN (SELECT store, original_transaction_id FROM owned)
                ORDER BY t.applied_at DESC, t.purchase_date DESC, t.transaction_id DESC
                LIMIT \(limit)
            ), sp AS (
                SELECT pe.* FROM subscriptions.periods_v1 pe
                WHERE (pe.store, pe.original_transaction_id) IN (SELECT store, original_transaction_id FROM owned)
                ORDER BY pe.starts_at DESC, pe.transaction_id DESC
                LIMIT \(limit)
            ), l AS (
                SELECT * FROM entitlements.ledger
                WHERE customer_id IN (SELECT customer_id FROM family)
                ORDER BY line_id DESC LIMIT \(limit)
            ), g AS (
                SELECT * FROM entitlements.promotional_grants
                WHERE customer_id IN (SELECT customer_id FROM family)
                ORDER BY created_at DESC, grant_id LIMIT \(limit)
            ), d AS (
                SELECT d.* FROM entitlements.purchase_devices d
                WHERE (d.store, d.original_transaction_id) IN (SELECT store, original_transaction_id FROM owned)
                ORDER BY d.last_seen DESC, d.device_id LIMIT \(limit)
            ), e AS (
                SELECT * FROM entitlements.events
                WHERE customer_id IN (SELECT customer_id FROM family)
                ORDER BY sequence DESC LIMIT \(limit)
            )
            SELECT jsonb_build_object(
                'customer', \(info)::jsonb,
                'transactions', coalesce((SELECT jsonb_agg(jsonb_build_object(
                    'store', t.store, 'transaction_id', t.transaction_id,
                    'original_transaction_id', t.original_transaction_id, 'store_product_id', t.store_product_id,
                    'product_id', t.product_id, 'type', t.product_type, 'environment', t.environment,
                    'quantity', t.quantity, 'purchase_date', entitlements.iso(t.purchase_date),
                    'expires_date', entitlements.iso(t.expires_date), 'price_milliunits', t.price_milliunits,
                    'currency', t.currency, 'applied_at', entitlements.iso(t.applied_at),
                    'revoked_at', entitlements.iso(t.revoked_at))
                    ORDER BY t.applied_at DESC, t.purchase_date DESC, t.transaction_id DESC) FROM t), '[]'::jsonb),
                'subscription_periods', coalesce((SELECT jsonb_agg(jsonb_build_object(
                    'store', sp.store, 'original_transaction_id', sp.original_transaction_id,
                    'transaction_id', sp.transaction_id, 'product_id', sp.product_id,
                    'store_product_id', sp.store_product_id, 'period_type', sp.period_type,
                    'starts_at', entitlements.iso(sp.starts_at), 'ends_at', entitlements.iso(sp.ends_at),
                    'revoked_at', entitlements.iso(sp.revoked_at), 'revocation_reason', sp.revocation_reason)
                    ORDER BY sp.starts_at DESC, sp.transaction_id DESC) FROM sp), '[]'::jsonb),
                'ledger', coalesce((SELECT jsonb_agg(jsonb_build_object(
                    'line_id', l.line_id, 'product_id', l.product_id, 'delta', l.delta, 'reason', l.reason,
                    'store', l.store, 'transaction_id', l.transaction_id, 'idempotency_key', l.idempotency_key,
                    'created_at', entitlements.iso(l.created_at))
                    ORDER BY l.line_id DESC) FROM l), '[]'::jsonb),
                'grants', coalesce((SELECT jsonb_agg(\(unescaped: PromotionalGrantRows.json)
                    ORDER BY g.created_at DESC, g.grant_id) FROM g), '[]'::jsonb),
                'devices', coalesce((SELECT jsonb_agg(jsonb_build_object(
                    'store', d.store, 'original_transaction_id', d.original_transaction_id,
                    'device_id', d.device_id, 'first_seen', entitlements.iso(d.first_seen),
                    'last_seen', entitlements.iso(d.last_seen))
                    ORDER BY d.last_seen DESC, d.device_id) FROM d), '[]'::jsonb),
                'events', coalesce((SELECT jsonb_agg(jsonb_build_object(
                    'event_id', e.event_id, 'type', e.type, 'app_user_id', e.app_user_id,
                    'created_at', entitlements.iso(e.created_at), 'payload', e.payload)
                    ORDER BY e.sequence DESC) FROM e), '[]'::jsonb)
            )::text
            """,
            logger: logger
        )
        for try await json in rows.decode(String.self) { return json }
        throw HistoryQueryError.noRow
    }
}

/// The history statement returned no row: cannot happen (it selects one value).
struct HistoryQueryError: Error {
    static let noRow = HistoryQueryError()
}
