/// One customer's realized LTV (`GET /v1/admin/customers/{app_user_id}/ltv`): what the customer paid, refunds taken
/// off, per currency as paid and, when asked, in one reporting currency at the rates of each transaction's UTC
/// purchase day (``ReportCurrency``), rounded once per transaction. The transactions are the LTV chart's
/// (`docs/charts.md`): the paid ones of the purchases the customer owns in the environment, bought by their owner (not
/// family shared), refunded when the store refunded or revoked them and did not reverse it; so a cohort's
/// `revenue_milliunits` in `GET /v1/admin/reports/ltv` is the sum of its customers' `ltv_milliunits`.
///
/// Binds: `$1` app, `$2` the customer (uuid), `$3` environment, `$4` the app user id asked for (named in the answer),
/// `$5` the reporting currency (null: none).
enum CustomerLTVQuery {
    /// The answer as JSON (`app_user_id`, `environment`, `first_purchase_date`, `currencies`, `converted`), then the
    /// currency and UTC day of the first transaction no loaded rate converts (both null when every one converts).
    static let sql = """
        WITH \(ReportCurrency.base), facts AS MATERIALIZED (
            SELECT t.store, t.transaction_id, t.currency, t.purchase_date, t.price_milliunits::numeric AS price,
                   t.revocation_date IS NOT NULL AND t.revocation_date < now()
                       AND (t.revocation_reversed_at IS NULL OR t.revocation_reversed_at < t.revocation_date)
                       AS refunded
            FROM entitlements.purchases p
            JOIN entitlements.transactions t
                ON t.store = p.store AND t.original_transaction_id = p.original_transaction_id
            WHERE p.app_id = $1::text AND p.customer_id = $2::uuid AND t.app_id = $1::text
              AND t.environment = $3::text AND t.price_milliunits > 0 AND t.currency IS NOT NULL
              AND t.ownership_type = 'purchased' AND t.purchase_date < now()
        ), \(ReportCurrency.rated("rated", facts: "facts", day: "entitlements.utc_day(f.purchase_date)")),
        converted AS MATERIALIZED (
            SELECT r.*, CASE WHEN $5::text IS NULL OR r.currency = $5::text THEN r.price
                             ELSE round(r.price * r.dst_rate / r.src_rate) END::bigint AS amount
            FROM rated r
        ), paid AS (
            SELECT currency, count(*) AS transactions, count(*) FILTER (WHERE refunded) AS refunds,
                   sum(price)::bigint AS paid, coalesce(sum(price) FILTER (WHERE refunded), 0)::bigint AS refunded
            FROM facts
            GROUP BY currency
        ), total AS (
            SELECT count(*) AS transactions, count(*) FILTER (WHERE refunded) AS refunds,
                   coalesce(sum(amount), 0)::bigint AS paid,
                   coalesce(sum(amount) FILTER (WHERE refunded), 0)::bigint AS refunded,
                   coalesce(sum(amount) FILTER (WHERE NOT refunded), 0)::bigint AS ltv, string_agg(note, ';') AS notes
            FROM converted
        )
        SELECT jsonb_build_object(
                   'app_user_id', $4::text, 'environment', $3::text,
                   'first_purchase_date', (SELECT entitlements.iso(min(purchase_date)) FROM facts),
                   'currencies', coalesce((
                       SELECT jsonb_agg(jsonb_build_object(
                           'currency', currency, 'transactions', transactions, 'refunds', refunds,
                           'paid_milliunits', paid, 'refunded_milliunits', refunded, 'ltv_milliunits', paid - refunded)
                           ORDER BY currency)
                       FROM paid), '[]'::jsonb),
                   'converted', CASE WHEN $5::text IS NOT NULL THEN (
                       SELECT jsonb_build_object(
                           'currency', $5::text, 'transactions', v.transactions, 'refunds', v.refunds,
                           'paid_milliunits', v.paid, 'refunded_milliunits', v.refunded, 'ltv_milliunits', v.ltv,
                           'rates', \(ReportCurrency.distinctNotes("v.notes")))
                       FROM total v) END
               )::text,
               m.currency, m.day
        FROM (SELECT 1) one
        LEFT JOIN LATERAL (
            SELECT CASE WHEN c.src_rate IS NULL THEN c.currency ELSE $5::text END AS currency,
                   to_char(entitlements.utc_day(c.purchase_date), 'YYYY-MM-DD') AS day
            FROM converted c
            WHERE c.amount IS NULL
            ORDER BY c.purchase_date
            LIMIT 1
        ) m ON true
        """
}
