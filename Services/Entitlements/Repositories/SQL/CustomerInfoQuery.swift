import Foundation
import Logging
import PostgresNIO

/// Renders a customer's info as JSON in one statement, so reading it costs one round trip and no decoding.
///
/// The shape is ``ShopkeeperModels/CustomerInfo`` (tests decode every answer into it and check it against the
/// OpenAPI document). Purchase entitlements are read through the catalog's published view at render time, so a
/// change of a product's entitlement ids applies to purchases already made.
enum CustomerInfoQuery {
    /// The info of the customer `appUserID` names, and when the customer was last seen; `nil` when no customer has
    /// that id.
    static func render(
        appID: String, appUserID: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> (json: String, lastSeen: Date)? {
        guard
            let rendered = try await renderDocument(appID: appID, appUserID: appUserID, on: connection, logger: logger)
        else { return nil }
        return (rendered.json, rendered.lastSeen)
    }

    /// The info of the customer `appUserID` names with what a cache needs to know about it; `nil` when no
    /// customer has that id.
    static func renderDocument(
        appID: String, appUserID: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> RenderedCustomer? {
        let rows = try await connection.execute(Statement(appID: appID, appUserID: appUserID), logger: logger)
        for try await (json, lastSeen, customerID, nextChange) in rows {
            return RenderedCustomer(json: json, lastSeen: lastSeen, customerID: customerID, nextChange: nextChange)
        }
        return nil
    }

    /// A rendered customer info.
    struct RenderedCustomer: Sendable {
        var json: String
        var lastSeen: Date
        var customerID: UUID
        /// When an end or a start passes and the info changes without a write; `nil` when none is ahead.
        var nextChange: Date?
    }

    /// The statement, prepared once per connection: planning it costs several times more than running it.
    struct Statement: PostgresPreparedStatement {
        typealias Row = (String, Date, UUID, Date?)

        static let name = "entitlements_customer_info_v2"
        static let sql = """
            WITH c AS (
                SELECT cu.customer_id, cu.first_seen, cu.last_seen, cu.refund_count
                FROM entitlements.aliases a JOIN entitlements.customers cu ON cu.customer_id = a.customer_id
                WHERE a.app_id = $1 AND a.app_user_id = $2
            ), grants AS (
                SELECT e.entitlement_id,
                       p.revoked_at IS NULL AND (p.expires_date IS NULL OR p.expires_date > now()) AS active,
                       coalesce(p.revoked_at, p.expires_date) AS expires_at,
                       p.product_id, p.purchase_date, p.store, p.environment, 'purchase' AS source
                FROM c
                JOIN entitlements.purchases p ON p.customer_id = c.customer_id AND p.product_type = 'non_consumable'
                JOIN catalog.products_v1 pr ON pr.app_id = p.app_id AND pr.product_id = p.product_id
                CROSS JOIN LATERAL jsonb_array_elements_text(coalesce(pr.entitlements, '[]'::jsonb))
                    AS e(entitlement_id)
                UNION ALL
                SELECT g.entitlement_id,
                       g.revoked_at IS NULL AND g.starts_at <= now() AND g.expires_at > now(),
                       least(g.revoked_at, g.expires_at),
                       NULL, g.starts_at, NULL, NULL, 'promotional'
                FROM c JOIN entitlements.promotional_grants g ON g.customer_id = c.customer_id
            ), best AS (
                SELECT DISTINCT ON (entitlement_id) * FROM grants
                ORDER BY entitlement_id, active DESC, expires_at DESC NULLS FIRST, purchase_date
            )
            SELECT jsonb_build_object(
                'app_user_id', $2::text,
                'aliases', coalesce((
                    SELECT jsonb_agg(a.app_user_id ORDER BY a.created_at, a.app_user_id)
                    FROM entitlements.aliases a WHERE a.customer_id = c.customer_id), '[]'::jsonb),
                'first_seen', entitlements.iso(c.first_seen),
                'last_seen', entitlements.iso(c.last_seen),
                'refund_count', c.refund_count,
                'entitlements', coalesce((
                    SELECT jsonb_object_agg(b.entitlement_id, jsonb_build_object(
                        'active', b.active, 'expires_at', entitlements.iso(b.expires_at), 'product_id', b.product_id,
                        'purchase_date', entitlements.iso(b.purchase_date), 'store', b.store,
                        'environment', b.environment, 'source', b.source))
                    FROM best b), '{}'::jsonb),
                'subscriptions', '[]'::jsonb,
                'non_subscription_purchases', coalesce((
                    SELECT jsonb_agg(jsonb_build_object(
                        'product_id', p.product_id, 'store_product_id', p.store_product_id, 'type', p.product_type,
                        'store', p.store, 'environment', p.environment, 'transaction_id', p.latest_transaction_id,
                        'original_transaction_id', p.original_transaction_id,
                        'purchase_date', entitlements.iso(p.purchase_date), 'quantity', p.quantity,
                        'revoked_at', entitlements.iso(p.revoked_at), 'revocation_reason', p.revocation_reason)
                        ORDER BY p.purchase_date, p.original_transaction_id)
                    FROM entitlements.purchases p
                    WHERE p.customer_id = c.customer_id AND p.product_type <> 'auto_renewable'), '[]'::jsonb),
                'consumable_balances', coalesce((
                    SELECT jsonb_object_agg(bal.product_id, bal.balance)
                    FROM entitlements.balances bal WHERE bal.customer_id = c.customer_id), '{}'::jsonb)
            )::text, c.last_seen, c.customer_id, (
                -- The next moment the info changes by itself (an end or a start passes): a cache keeps it no longer.
                SELECT min(t) FROM (
                    SELECT p.expires_date FROM entitlements.purchases p
                    WHERE p.customer_id = c.customer_id AND p.expires_date > now()
                    UNION ALL
                    SELECT g.starts_at FROM entitlements.promotional_grants g
                    WHERE g.customer_id = c.customer_id AND g.starts_at > now()
                    UNION ALL
                    SELECT g.expires_at FROM entitlements.promotional_grants g
                    WHERE g.customer_id = c.customer_id AND g.expires_at > now()
                ) AS changes(t))
            FROM c
            """

        var appID: String
        var appUserID: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(appID)
            bindings.append(appUserID)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(Row.self)
        }
    }
}
