/// The cohort charts' statements (`GET /v1/admin/reports/trial-conversion` and `/retention`), over the facts as they
/// are: every period of every subscription (`subscriptions.periods_v1`, with the end of its access `access_ends_at` as
/// subscriptions defines it) of the environment asked for (`entitlements.transactions`). A period whose access ended
/// at or before its start (revoked at once) never counts.
///
/// Both are seen as of the end of the range (`to`'s end, or now when earlier): what happened later is not counted, so
/// an answer for a past range never changes.
///
/// Binds: `$1` app, `$2`/`$3` the range (the cohorts' first days), `$4` environment, `$5`/`$6` cohorts by month or by
/// day (neither: the whole range is one cohort), `$7`...`$9` grouping by product, store, storefront.
enum CohortReports {
    /// The periods of the app in the environment, and the moment the charts are seen at.
    static let periods = """
        WITH asof AS MATERIALIZED (
            SELECT least(now(), entitlements.utc_start($3::text::date + 1)) AS at
        ), periods AS MATERIALIZED (
            SELECT p.store, p.original_transaction_id AS otid, p.transaction_id AS tid, p.product_id, t.storefront,
                   p.period_type,
                   p.starts_at, p.access_ends_at AS ends_at
            FROM subscriptions.periods_v1 p
            JOIN entitlements.transactions t ON t.store = p.store AND t.transaction_id = p.transaction_id
            WHERE p.app_id = $1::text AND t.app_id = $1::text AND t.environment = $4::text
              AND p.access_ends_at > p.starts_at
        )
        """

    /// A cohort's first day as `YYYY-MM-DD` from the UTC day `day` of its members' start.
    static func cohort(_ day: String) -> String {
        """
        CASE WHEN $5::boolean THEN to_char(\(day) - (extract(day FROM \(day))::int - 1), 'YYYY-MM-DD')
             WHEN $6::boolean THEN to_char(\(day), 'YYYY-MM-DD') END
        """
    }

    /// Per trial cohort (the UTC day or month the free trial started) and product, store, storefront when grouped:
    /// trials started, trials converted (their subscription's first paid period after the trial began, by the time
    /// the chart is seen at) and trials still running then (pending). The rest expired unconverted.
    static let trialConversion =
        periods + """
            , trials AS (
                SELECT tr.tid, tr.starts_at, tr.ends_at, tr.product_id, tr.store, tr.storefront,
                       min(pd.starts_at) AS converted_at
                FROM periods tr
                LEFT JOIN periods pd ON pd.store = tr.store AND pd.otid = tr.otid AND pd.period_type <> 'trial'
                                    AND pd.starts_at >= tr.starts_at
                WHERE tr.period_type = 'trial' AND tr.starts_at >= entitlements.utc_start($2::text::date)
                  AND tr.starts_at < entitlements.utc_start($3::text::date + 1)
                GROUP BY tr.store, tr.tid, tr.starts_at, tr.ends_at, tr.product_id, tr.storefront
            ), keyed AS (
                SELECT \(cohort("entitlements.utc_day(t.starts_at)")) AS cohort,
                       CASE WHEN $7::boolean THEN t.product_id END AS g_product,
                       CASE WHEN $8::boolean THEN t.store END AS g_store,
                       CASE WHEN $9::boolean THEN t.storefront END AS g_storefront,
                       t.ends_at, t.converted_at
                FROM trials t
            )
            SELECT t.cohort, t.g_product, t.g_store, t.g_storefront, count(*)::bigint,
                   count(*) FILTER (WHERE t.converted_at < a.at)::bigint,
                   count(*) FILTER (WHERE (t.converted_at IS NULL OR t.converted_at >= a.at)
                                    AND t.ends_at > a.at)::bigint
            FROM keyed t CROSS JOIN asof a
            GROUP BY t.cohort, t.g_product, t.g_store, t.g_storefront
            ORDER BY t.cohort, t.g_product, t.g_store, t.g_storefront
            """

    /// Per start cohort (the UTC day or month of a subscription's first paid period) and product, store, storefront
    /// of that period when grouped, and per month number `n` since that start: the cohort's subscriptions, those whose
    /// `n`-th month had begun by the time the chart is seen at (reached), and those of them with paid access at some
    /// moment of that month (retained). Month `n` of a subscription is `[start + n months, start + n + 1 months)`
    /// (calendar months in UTC, a day past the month's end clamped to its last day), cut at the time the chart is
    /// seen at. A range is at most 400 days, so `n` is at most 13.
    static let retention =
        periods + """
            , paid AS MATERIALIZED (
                SELECT store, otid, product_id, storefront, starts_at, ends_at FROM periods WHERE period_type <> 'trial'
            ), firsts AS MATERIALIZED (
                SELECT DISTINCT ON (store, otid) store, otid, product_id, storefront, starts_at AS first_at
                FROM paid
                ORDER BY store, otid, starts_at, product_id
            ), cohorts AS MATERIALIZED (
                SELECT f.store, f.otid, f.first_at, \(cohort("entitlements.utc_day(f.first_at)")) AS cohort,
                       CASE WHEN $7::boolean THEN f.product_id END AS g_product,
                       CASE WHEN $8::boolean THEN f.store END AS g_store,
                       CASE WHEN $9::boolean THEN f.storefront END AS g_storefront
                FROM firsts f
                WHERE f.first_at >= entitlements.utc_start($2::text::date)
                  AND f.first_at < entitlements.utc_start($3::text::date + 1)
            ), months AS (
                SELECT c.*, k.n AS period,
                       (c.first_at AT TIME ZONE 'UTC' + make_interval(months => k.n)) AT TIME ZONE 'UTC' AS lo,
                       least((c.first_at AT TIME ZONE 'UTC' + make_interval(months => k.n + 1)) AT TIME ZONE 'UTC',
                             a.at) AS hi
                FROM cohorts c CROSS JOIN asof a CROSS JOIN generate_series(0, 14) k(n)
                WHERE (c.first_at AT TIME ZONE 'UTC' + make_interval(months => k.n)) AT TIME ZONE 'UTC' < a.at
            ), kept AS (
                SELECT m.cohort, m.g_product, m.g_store, m.g_storefront, m.period,
                       bool_or(p.starts_at < m.hi AND p.ends_at > m.lo) AS retained
                FROM months m JOIN paid p ON p.store = m.store AND p.otid = m.otid
                GROUP BY m.store, m.otid, m.period, m.cohort, m.g_product, m.g_store, m.g_storefront
            ), cells AS (
                SELECT cohort, g_product, g_store, g_storefront, period, count(*)::bigint AS reached,
                       count(*) FILTER (WHERE retained)::bigint AS retained
                FROM kept
                GROUP BY cohort, g_product, g_store, g_storefront, period
            )
            SELECT c.cohort, c.g_product, c.g_store, c.g_storefront, c.period::bigint,
                   max(c.reached) OVER (PARTITION BY c.cohort, c.g_product, c.g_store, c.g_storefront),
                   c.reached, c.retained
            FROM cells c
            ORDER BY c.cohort, c.g_product, c.g_store, c.g_storefront, c.period
            """
}

extension CohortReports {
    /// Per UTC day of the range (`$1` app, `$2`/`$3` the range, `$4` environment): the subscriptions in a paid period
    /// and those in a free trial at the day's end (each subscription once), the customers first seen that day (not
    /// folded into another by an alias; customers are not kept per environment) and the customers whose first paid
    /// transaction (any product, not a free trial, bought by its owner) was that day.
    static let activity = """
        WITH days AS MATERIALIZED (
            SELECT g::date AS day, entitlements.utc_start(g::date + 1) AS at
            FROM generate_series($2::text::date, $3::text::date, interval '1 day') g
        ), periods AS MATERIALIZED (
            SELECT p.store, p.original_transaction_id AS otid, p.period_type, p.starts_at, p.access_ends_at AS ends_at
            FROM subscriptions.periods_v1 p
            JOIN entitlements.transactions t ON t.store = p.store AND t.transaction_id = p.transaction_id
            WHERE p.app_id = $1::text AND t.app_id = $1::text AND t.environment = $4::text
              AND p.access_ends_at > p.starts_at AND p.starts_at < entitlements.utc_start($3::text::date + 1)
              AND p.access_ends_at > entitlements.utc_start($2::text::date + 1)
        ), active AS (
            -- Each period on the days whose end it covers (`starts_at <= end < ends_at`; a day's end is the next
            -- day's start), within the range: one row per period and day, not a join of every day with every period.
            SELECT d::date AS day,
                   count(DISTINCT (p.store, p.otid)) FILTER (WHERE p.period_type <> 'trial') AS subscriptions,
                   count(DISTINCT (p.store, p.otid)) FILTER (WHERE p.period_type = 'trial') AS trials
            FROM periods p
            CROSS JOIN LATERAL generate_series(
                greatest(entitlements.utc_day(p.starts_at - interval '1 microsecond'), $2::text::date),
                least(entitlements.utc_day(p.ends_at - interval '1 microsecond') - 1, $3::text::date),
                interval '1 day') d
            GROUP BY 1
        ), customers AS (
            SELECT entitlements.utc_day(c.first_seen) AS day, count(*) AS n
            FROM entitlements.customers c
            WHERE c.app_id = $1::text AND c.merged_into IS NULL
              AND c.first_seen >= entitlements.utc_start($2::text::date)
              AND c.first_seen < entitlements.utc_start($3::text::date + 1)
            GROUP BY 1
        ), paying AS (
            SELECT entitlements.utc_day(f.first_at) AS day, count(*) AS n
            FROM (
                SELECT o.customer_id, min(t.purchase_date) AS first_at
                FROM entitlements.transactions t
                JOIN entitlements.purchases o
                    ON o.store = t.store AND o.original_transaction_id = t.original_transaction_id
                LEFT JOIN subscriptions.periods_v1 p ON p.store = t.store AND p.transaction_id = t.transaction_id
                WHERE t.app_id = $1::text AND t.environment = $4::text AND t.ownership_type = 'purchased'
                  AND coalesce(t.price_milliunits, 1) > 0 AND p.period_type IS DISTINCT FROM 'trial'
                GROUP BY o.customer_id
            ) f
            WHERE f.first_at >= entitlements.utc_start($2::text::date)
              AND f.first_at < entitlements.utc_start($3::text::date + 1)
            GROUP BY 1
        )
        SELECT to_char(d.day, 'YYYY-MM-DD'), coalesce(a.subscriptions, 0)::bigint, coalesce(a.trials, 0)::bigint,
               coalesce(c.n, 0)::bigint, coalesce(y.n, 0)::bigint
        FROM days d
        LEFT JOIN active a ON a.day = d.day
        LEFT JOIN customers c ON c.day = d.day
        LEFT JOIN paying y ON y.day = d.day
        ORDER BY d.day
        """
}
