/// The churn, refund rate and realized LTV charts' statements (`GET /v1/admin/reports/churn`, `/refunds`, `/ltv`),
/// over the facts as they are, in one reporting currency (``ReportCurrency``) or each currency as paid. Each is seen as
/// of the end of the range (`to`'s end, or now when earlier).
///
/// Binds: `$1` app, `$2`/`$3` the range, `$4` environment, `$5` the reporting currency (null: each amount in its own
/// currency), `$6`...`$8` grouping by store, product, storefront, `$9`/`$10` rows by month or by day (neither: the
/// whole range in one row).
enum RevenueCharts {
    /// The first day of the row a UTC day `day` falls in, within the range: its month's first day (or `from`, when
    /// later), itself, or `from`.
    static func bucket(_ day: String) -> String {
        """
        CASE WHEN $9::boolean THEN greatest(\(day) - (extract(day FROM \(day))::int - 1), $2::text::date)
             WHEN $10::boolean THEN \(day) ELSE $2::text::date END
        """
    }

    /// The CTE `asof`: the moment the chart is seen at.
    static let asOf = """
        asof AS MATERIALIZED (SELECT least(now(), entitlements.utc_start($3::text::date + 1)) AS at)
        """

    /// Per month or day of the range (cut at the moment the chart is seen at), its product, store, storefront when
    /// grouped, and currency: the subscriptions with MRR at its start (`active_at_start`, MRR's active subscriptions
    /// at the end of the day before), those of them with none at its end (`churned`), MRR at its start and the part of
    /// it the churned ones had. A subscription that churned and came back within the row is not churned; one that
    /// began within it is in the next row's start. Units are MRR's (``MRRReport/keyed``): grouped by product, a change
    /// of product is churn of the old one.
    static let churn =
        MRRReport.periods + """
            , \(MRRReport.keyed), \(asOf), buckets AS MATERIALIZED (
                SELECT min(g::date) AS first_day, entitlements.utc_start(min(g::date)) AS lo,
                       least(entitlements.utc_start(max(g::date) + 1), (SELECT at FROM asof)) AS hi
                FROM generate_series($2::text::date, $3::text::date, interval '1 day') g
                WHERE entitlements.utc_start(g::date) < (SELECT at FROM asof)
                GROUP BY \(bucket("g::date"))
            ), starts AS (
                SELECT b.first_day, k.unit, k.store, k.otid, k.g_store, k.g_product, k.g_storefront, k.out_currency,
                       sum(k.amount) AS mrr, string_agg(k.note, ';') AS notes
                FROM buckets b JOIN keyed k ON k.starts_at <= b.lo AND k.ends_at > b.lo
                GROUP BY b.first_day, k.unit, k.store, k.otid, k.g_store, k.g_product, k.g_storefront, k.out_currency
            ), ends AS (
                SELECT DISTINCT b.first_day, k.unit
                FROM buckets b JOIN keyed k ON k.starts_at <= b.hi AND k.ends_at > b.hi
            ), grouped AS (
                SELECT s.first_day, s.g_product, s.g_store, s.g_storefront, s.out_currency,
                       count(DISTINCT (s.store, s.otid)) AS active,
                       count(DISTINCT (s.store, s.otid)) FILTER (WHERE e.unit IS NULL) AS churned,
                       sum(s.mrr) AS mrr, coalesce(sum(s.mrr) FILTER (WHERE e.unit IS NULL), 0) AS churned_mrr,
                       string_agg(s.notes, ';') AS notes
                FROM starts s LEFT JOIN ends e ON e.first_day = s.first_day AND e.unit = s.unit
                GROUP BY s.first_day, s.g_product, s.g_store, s.g_storefront, s.out_currency
            )
            SELECT to_char(g.first_day, 'YYYY-MM-DD'), g.g_product, g.g_store, g.g_storefront, g.out_currency,
                   g.active::bigint, g.churned::bigint, g.mrr::bigint, g.churned_mrr::bigint,
                   \(ReportCurrency.distinctNotes("g.notes"))
            FROM grouped g
            ORDER BY g.first_day, g.g_product, g.g_store, g.g_storefront, g.out_currency
            """

    /// The paid transactions of the app in the environment bought before the chart is seen at (`$2` and later for
    /// `ranged`), bought by their purchase's owner (not family shared), with the product of their purchase, whether
    /// they were refunded by then (a refund or revocation the store did not reverse) and their amount in the reporting
    /// currency at the rates of their UTC purchase day (null when none converts), rounded once per transaction.
    static func transactions(ranged: Bool) -> String {
        """
        WITH \(ReportCurrency.base), \(asOf), facts AS MATERIALIZED (
            SELECT t.store, t.transaction_id, p.customer_id, p.product_id, t.storefront, t.currency, t.purchase_date,
                   t.price_milliunits::numeric AS price,
                   t.revocation_date IS NOT NULL AND t.revocation_date < a.at
                       AND (t.revocation_reversed_at IS NULL OR t.revocation_reversed_at < t.revocation_date)
                       AS refunded
            FROM entitlements.transactions t
            JOIN entitlements.purchases p ON p.store = t.store AND p.original_transaction_id = t.original_transaction_id
            CROSS JOIN asof a
            WHERE t.app_id = $1::text AND t.environment = $4::text AND t.price_milliunits > 0
              AND t.currency IS NOT NULL AND t.ownership_type = 'purchased' AND t.purchase_date < a.at
              \(ranged ? "AND t.purchase_date >= entitlements.utc_start($2::text::date)" : "")
        ), \(ReportCurrency.rated("rated", facts: "facts", day: "entitlements.utc_day(f.purchase_date)")),
        converted AS MATERIALIZED (
            SELECT r.*, CASE WHEN $5::text IS NULL OR r.currency = $5::text THEN r.price
                             ELSE round(r.price * r.dst_rate / r.src_rate) END::bigint AS amount
            FROM rated r
        )
        """
    }

    /// The first transaction of `rows` (alias `c`, from ``transactions(ranged:)``'s `converted`) no rate converts:
    /// its currency and UTC day.
    static func firstUnconverted(_ rows: String) -> String {
        """

        SELECT CASE WHEN c.src_rate IS NULL THEN c.currency ELSE $5::text END,
               to_char(entitlements.utc_day(c.purchase_date), 'YYYY-MM-DD')
        FROM \(rows)
        WHERE c.amount IS NULL
        ORDER BY c.purchase_date
        LIMIT 1
        """
    }

    /// The first transaction of the range no rate converts.
    static let refundsMissingRate = transactions(ranged: true) + firstUnconverted("converted c")

    /// Per month or day of purchase (and product, store, storefront when grouped) and currency: paid transactions,
    /// those refunded by the time the chart is seen at, their revenue and the refunded part of it.
    static let refunds =
        transactions(ranged: true) + """
            , grouped AS (
                SELECT \(bucket("entitlements.utc_day(c.purchase_date)")) AS first_day,
                       CASE WHEN $7::boolean THEN c.product_id END AS g_product,
                       CASE WHEN $6::boolean THEN c.store END AS g_store,
                       CASE WHEN $8::boolean THEN c.storefront END AS g_storefront, c.out_currency,
                       count(*) AS transactions, count(*) FILTER (WHERE c.refunded) AS refunds, sum(c.amount) AS revenue,
                       coalesce(sum(c.amount) FILTER (WHERE c.refunded), 0) AS refunded, string_agg(c.note, ';') AS notes
                FROM converted c
                WHERE c.purchase_date < entitlements.utc_start($3::text::date + 1)
                GROUP BY 1, 2, 3, 4, 5
            )
            SELECT to_char(g.first_day, 'YYYY-MM-DD'), g.g_product, g.g_store, g.g_storefront, g.out_currency,
                   g.transactions::bigint, g.refunds::bigint, g.revenue::bigint, g.refunded::bigint,
                   \(ReportCurrency.distinctNotes("g.notes"))
            FROM grouped g
            ORDER BY g.first_day, g.g_product, g.g_store, g.g_storefront, g.out_currency
            """

    /// The CTEs `firsts`, every converted transaction with its customer's first paid transaction (any product,
    /// refunded or not: `first_at`, `first_store`, `first_product`, `first_storefront`), and `cohort`, those of the
    /// customers whose first was in the range. One window over the transactions: no join of two large sets whose sizes
    /// the planner cannot know.
    static let cohortTransactions =
        transactions(ranged: false) + """
            , firsts AS MATERIALIZED (
                SELECT c.*, first_value(c.purchase_date) OVER w AS first_at, first_value(c.store) OVER w AS first_store,
                       first_value(c.product_id) OVER w AS first_product,
                       first_value(c.storefront) OVER w AS first_storefront
                FROM converted c
                WINDOW w AS (PARTITION BY c.customer_id ORDER BY c.purchase_date, c.store, c.transaction_id)
            ), cohort AS MATERIALIZED (
                SELECT * FROM firsts
                WHERE first_at >= entitlements.utc_start($2::text::date)
                  AND first_at < entitlements.utc_start($3::text::date + 1)
            )
            """

    /// The first transaction of a customer of the range's cohorts that no rate converts.
    static let ltvMissingRate = cohortTransactions + firstUnconverted("cohort c")

    /// Per first-purchase cohort (and product, store, storefront of the first transaction when grouped) and currency:
    /// the cohort's customers (with a transaction in that currency when each is reported as paid), the revenue they
    /// brought by the time the chart is seen at, refunds taken off, and that revenue per customer (realized LTV,
    /// rounded half up to a milliunit).
    static let ltv =
        cohortTransactions + """
            , keyed AS (
                SELECT k.*, \(bucket("entitlements.utc_day(k.first_at)")) AS first_day,
                       CASE WHEN $7::boolean THEN k.first_product END AS g_product,
                       CASE WHEN $6::boolean THEN k.first_store END AS g_store,
                       CASE WHEN $8::boolean THEN k.first_storefront END AS g_storefront
                FROM cohort k
            ), grouped AS (
                SELECT first_day, g_product, g_store, g_storefront, out_currency,
                       count(DISTINCT customer_id) AS customers,
                       coalesce(sum(amount) FILTER (WHERE NOT refunded), 0) AS revenue,
                       coalesce(sum(amount) FILTER (WHERE refunded), 0) AS refunded, string_agg(note, ';') AS notes
                FROM keyed
                GROUP BY 1, 2, 3, 4, 5
            )
            SELECT to_char(g.first_day, 'YYYY-MM-DD'), g.g_product, g.g_store, g.g_storefront, g.out_currency,
                   g.customers::bigint, g.revenue::bigint, g.refunded::bigint,
                   round(g.revenue::numeric / g.customers)::bigint, \(ReportCurrency.distinctNotes("g.notes"))
            FROM grouped g
            ORDER BY g.first_day, g.g_product, g.g_store, g.g_storefront, g.out_currency
            """
}
