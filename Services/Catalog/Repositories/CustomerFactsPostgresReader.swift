import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels

/// Reads ``CustomerFacts`` from the views entitlements and subscriptions publish for other services
/// (`entitlements.customer_aliases_v1`, `entitlements.purchases_v1`, `subscriptions.subscriptions_v1`,
/// `subscriptions.periods_v1`, `subscriptions.trials_v1`): read only, one statement, and only for a request a
/// customer rule needs it for. No call to another service: the catalog stays a leaf of the call tree.
struct CustomerFactsPostgresReader: Sendable {
    let client: PostgresClient
    let logger: Logger

    func facts(appID: String, appUserID: String) async throws -> CustomerFacts {
        let autoRenewable = ProductType.autoRenewable.rawValue
        let nonRenewing = ProductType.nonRenewing.rawValue
        let offerPeriods = [SubscriptionPeriodType.trial.rawValue, SubscriptionPeriodType.intro.rawValue]
        let rows = try await client.query(
            """
            WITH customer AS (
                SELECT customer_id FROM entitlements.customer_aliases_v1
                WHERE app_id = \(appID) AND app_user_id = \(appUserID)
            ), bought AS (
                SELECT p.store, p.original_transaction_id, p.product_id, p.product_type, p.expires_date, p.revoked_at
                FROM entitlements.purchases_v1 p JOIN customer c ON c.customer_id = p.customer_id
                WHERE p.app_id = \(appID)
            ), subscribed AS (
                -- Auto-renewable: the subscriptions service's group and state; non-renewing: the product's group,
                -- active until the purchase's end.
                SELECT coalesce(s.group_key, pr.document ->> 'group') AS group_key, coalesce(s.active, false) AS active
                FROM bought b
                LEFT JOIN subscriptions.subscriptions_v1 s
                    ON s.store = b.store AND s.original_transaction_id = b.original_transaction_id
                LEFT JOIN catalog.products pr ON pr.app_id = \(appID) AND pr.product_id = b.product_id
                WHERE b.product_type = \(autoRenewable)
                UNION ALL
                SELECT pr.document ->> 'group', b.revoked_at IS NULL AND b.expires_date > now()
                FROM bought b JOIN catalog.products pr ON pr.app_id = \(appID) AND pr.product_id = b.product_id
                WHERE b.product_type = \(nonRenewing)
            )
            SELECT
                EXISTS (SELECT 1 FROM bought)
                    OR EXISTS (SELECT 1 FROM subscriptions.trials_v1 t JOIN customer c ON c.customer_id = t.customer_id
                               WHERE t.app_id = \(appID)),
                EXISTS (SELECT 1 FROM subscriptions.trials_v1 t JOIN customer c ON c.customer_id = t.customer_id
                        WHERE t.app_id = \(appID))
                    OR EXISTS (SELECT 1 FROM subscriptions.periods_v1 pe
                               JOIN bought b ON pe.store = b.store AND pe.original_transaction_id = b.original_transaction_id
                               WHERE pe.app_id = \(appID) AND pe.period_type = ANY(\(offerPeriods))),
                coalesce((SELECT array_agg(DISTINCT group_key) FROM subscribed WHERE group_key IS NOT NULL), '{}'),
                coalesce((SELECT array_agg(DISTINCT group_key) FROM subscribed WHERE group_key IS NOT NULL AND active),
                         '{}')
            """,
            logger: logger
        )
        for try await (history, trialUsed, ever, active) in rows.decode((Bool, Bool, [String], [String]).self) {
            return CustomerFacts(
                isNew: !history, groupsEver: Set(ever), groupsActive: Set(active), trialUsed: trialUsed)
        }
        return .unknown
    }

    /// The customer's canonical id for experiment assignment: the id the customer `appUserID` names was first known
    /// by (its oldest alias in `entitlements.customer_aliases_v1`), the same for every alias of one customer; or
    /// `appUserID` itself while no customer has it, which is the id its customer will be first known by when the
    /// customer is created from it (so an id's variant does not move when it becomes a customer).
    func canonicalID(appID: String, appUserID: String) async throws -> String {
        let rows = try await client.query(
            """
            SELECT o.app_user_id FROM entitlements.customer_aliases_v1 a
            JOIN entitlements.customer_aliases_v1 o ON o.app_id = a.app_id AND o.customer_id = a.customer_id
            WHERE a.app_id = \(appID) AND a.app_user_id = \(appUserID)
            ORDER BY o.created_at, o.app_user_id
            LIMIT 1
            """,
            logger: logger
        )
        for try await first in rows.decode(String.self) { return first }
        return appUserID
    }
}
