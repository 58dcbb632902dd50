import Logging
import PostgresNIO
import ShopkeeperModels

/// Reads what each customer exposed to an experiment did after the first exposure, from the catalog's exposures and
/// the views entitlements and subscriptions publish (`entitlements.customer_aliases_v1`, `purchases_v1`,
/// `transactions_v1`, `subscriptions.trials_v1`, `periods_v1`): read only, one statement.
///
/// An exposure's customer is the one its canonical id (an app user id) names now. A purchase counts when first bought at or after the exposure; its transactions' prices are
/// its revenue, refunded or revoked ones left out. A trial counts when started at or after the exposure (the app's
/// own, or a store's free trial period); it converted when a purchase (counted as above) followed the app's trial,
/// or the store trial's subscription went on to a paid period.
struct ExperimentResultsPostgresReader: Sendable {
    let client: PostgresClient
    let logger: Logger

    func customers(appID: String, experimentID: String) async throws -> [ExposedCustomer] {
        let trial = SubscriptionPeriodType.trial.rawValue
        let rows = try await client.query(
            """
            WITH exposed AS (
                SELECT e.customer_key, e.variant_key, e.first_exposed_at,
                       (SELECT a.customer_id FROM entitlements.customer_aliases_v1 a
                        WHERE a.app_id = \(appID) AND a.app_user_id = e.customer_key) AS customer_id
                FROM catalog.experiment_exposures e
                WHERE e.app_id = \(appID) AND e.experiment_id = \(experimentID)
            ), bought AS (
                SELECT x.customer_key, x.first_exposed_at, p.store, p.original_transaction_id, p.purchase_date,
                       p.revoked_at IS NOT NULL AS revoked
                FROM exposed x
                JOIN entitlements.purchases_v1 p
                    ON p.app_id = \(appID) AND p.customer_id = x.customer_id AND p.purchase_date >= x.first_exposed_at
            ), paid AS (
                SELECT b.customer_key, t.currency, sum(t.price_milliunits)::bigint AS amount
                FROM bought b
                JOIN entitlements.transactions_v1 t
                    ON t.store = b.store AND t.original_transaction_id = b.original_transaction_id
                WHERE NOT t.revoked AND t.currency IS NOT NULL AND t.price_milliunits IS NOT NULL
                GROUP BY b.customer_key, t.currency
            ), store_trials AS (
                SELECT b.customer_key,
                       bool_or(EXISTS (SELECT 1 FROM subscriptions.periods_v1 n
                                       WHERE n.store = pe.store AND n.original_transaction_id = pe.original_transaction_id
                                         AND n.period_type <> \(trial) AND n.starts_at >= pe.ends_at)) AS converted
                FROM bought b
                JOIN subscriptions.periods_v1 pe
                    ON pe.store = b.store AND pe.original_transaction_id = b.original_transaction_id
                WHERE pe.period_type = \(trial) AND pe.starts_at >= b.first_exposed_at
                GROUP BY b.customer_key
            )
            SELECT x.variant_key,
                   (SELECT count(*) FROM bought b WHERE b.customer_key = x.customer_key)::bigint,
                   (SELECT count(*) FROM bought b WHERE b.customer_key = x.customer_key AND b.revoked)::bigint,
                   EXISTS (SELECT 1 FROM subscriptions.trials_v1 t
                           WHERE t.app_id = \(appID) AND t.customer_id = x.customer_id
                             AND t.started_at >= x.first_exposed_at)
                       OR EXISTS (SELECT 1 FROM store_trials s WHERE s.customer_key = x.customer_key),
                   EXISTS (SELECT 1 FROM subscriptions.trials_v1 t
                           WHERE t.app_id = \(appID) AND t.customer_id = x.customer_id
                             AND t.started_at >= x.first_exposed_at
                             AND EXISTS (SELECT 1 FROM bought b
                                         WHERE b.customer_key = x.customer_key AND b.purchase_date >= t.started_at))
                       OR EXISTS (SELECT 1 FROM store_trials s WHERE s.customer_key = x.customer_key AND s.converted),
                   coalesce((SELECT array_agg(currency ORDER BY currency) FROM paid WHERE paid.customer_key = x.customer_key),
                            '{}'),
                   coalesce((SELECT array_agg(amount ORDER BY currency) FROM paid WHERE paid.customer_key = x.customer_key),
                            '{}')
            FROM exposed x
            """,
            logger: logger
        )
        var customers: [ExposedCustomer] = []
        for try await (variant, purchases, refunds, trialStarted, trialConverted, currencies, amounts) in rows.decode(
            (String, Int64, Int64, Bool, Bool, [String], [Int64]).self)
        {
            customers.append(
                ExposedCustomer(
                    variant: variant, purchases: Int(purchases), refunds: Int(refunds), trialStarted: trialStarted,
                    trialConverted: trialConverted,
                    revenue: Dictionary(zip(currencies, amounts), uniquingKeysWith: +)))
        }
        return customers
    }
}
