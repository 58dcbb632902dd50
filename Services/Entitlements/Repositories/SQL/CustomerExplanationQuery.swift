import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// Renders why each of a customer's entitlements is active or not, as JSON in one statement.
///
/// It selects from the very sources customer info is rendered from (``CustomerInfoQuery/sources``), in the same
/// order (``CustomerInfoQuery/precedence``): an entitlement's first reason is the one customer info shows, and it is
/// active exactly when customer info says so. Entitlements the app's catalog names that the customer has no source
/// for are listed too, inactive, with the products that would grant them.
enum CustomerExplanationQuery {
    /// The explanation document of the customer `appUserID` names; `nil` when no customer has that id.
    static func render(appID: String, appUserID: String, on connection: PostgresConnection, logger: Logger)
        async throws -> String?
    {
        let rows = try await connection.executeStatement(Statement(appID: appID, appUserID: appUserID), logger: logger)
        for try await json in rows { return json }
        return nil
    }

    struct Statement: PostgresPreparedStatement {
        typealias Row = String

        static let name = "entitlements_customer_explanation_v1"
        static let sql =
            CustomerInfoQuery.sources + """
                , catalog_entitlements AS (
                    SELECT e.entitlement_id, jsonb_agg(pr.product_id ORDER BY pr.product_id) AS products
                    FROM catalog.products_v1 pr
                    CROSS JOIN LATERAL jsonb_array_elements_text(coalesce(pr.entitlements, '[]'::jsonb))
                        AS e(entitlement_id)
                    WHERE pr.app_id = $1
                    GROUP BY e.entitlement_id
                ), reasons AS (
                    SELECT g.entitlement_id, bool_or(g.active) AS active,
                           jsonb_agg(jsonb_build_object(
                               'source', g.source, 'active', g.active, 'state', g.state, 'product_id', g.product_id,
                               'store', g.store, 'environment', g.environment,
                               'original_transaction_id', CASE WHEN g.source <> 'promotional' THEN g.reference END,
                               'grant_id', CASE WHEN g.source = 'promotional' THEN g.reference END,
                               'since', entitlements.iso(g.purchase_date), 'until', entitlements.iso(g.expires_at))
                               ORDER BY \(CustomerInfoQuery.precedence)) AS reasons
                    FROM grants g
                    GROUP BY g.entitlement_id
                )
                SELECT jsonb_build_object(
                    'app_user_id', $2::text,
                    'entitlements', coalesce((
                        SELECT jsonb_object_agg(x.entitlement_id, jsonb_build_object(
                            'active', coalesce(r.active, false),
                            'reasons', coalesce(r.reasons, '[]'::jsonb),
                            'granted_by_products', coalesce(ce.products, '[]'::jsonb)))
                        FROM (SELECT entitlement_id FROM reasons UNION SELECT entitlement_id FROM catalog_entitlements) x
                        LEFT JOIN reasons r ON r.entitlement_id = x.entitlement_id
                        LEFT JOIN catalog_entitlements ce ON ce.entitlement_id = x.entitlement_id), '{}'::jsonb)
                )::text
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
