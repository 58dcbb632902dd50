/// The MRR report's statements (`GET /v1/admin/reports/mrr`), over the facts as they are: every paid period
/// (`subscriptions.periods_v1`, not a trial) with the price entitlements recorded for its transaction
/// (`entitlements.transactions`) and its product's duration (`catalog.products_v1`).
///
/// Binds: `$1` app, `$2`/`$3` the range, `$4` environment, `$5` the reporting currency (null: each figure in its own
/// currency), `$6`...`$8` grouping by store, product, storefront.
enum MRRReport {
    /// The paid periods with their monthly amount in the currency they are reported in (null when no rate converts
    /// it), and the rates used (`USD/EUR=1.0962@2025-01-02`: 1 EUR bought 1.0962 USD that day; the base's own rate is
    /// 1 and not listed).
    ///
    /// A period's access ends at its end, or at its refund or revocation when earlier and not reversed
    /// (`access_ends_at`, published by subscriptions with its rule `subscriptions.period_end`). Its monthly amount is
    /// its price times the periods its duration makes in a year, over 12 (`P1Y`: 1, `P1M`: 12, `P1W`: 52, `P1D`: 365,
    /// divided by the count), converted at the rates of the period's first UTC day (``ReportCurrency``), rounded to a
    /// milliunit once, half away from zero.
    static let periods = """
        WITH \(ReportCurrency.base), facts AS MATERIALIZED (
            SELECT p.store, p.original_transaction_id AS otid, p.product_id, t.storefront, t.currency, p.starts_at,
                   p.access_ends_at AS ends_at,
                   t.price_milliunits::numeric AS price,
                   (CASE d.m[2] WHEN 'Y' THEN 1 WHEN 'M' THEN 12 WHEN 'W' THEN 52 ELSE 365 END)::numeric AS per_year,
                   12 * d.m[1]::numeric AS twelve_count
            FROM subscriptions.periods_v1 p
            JOIN entitlements.transactions t ON t.store = p.store AND t.transaction_id = p.transaction_id
            JOIN catalog.products_v1 c ON c.app_id = p.app_id AND c.product_id = p.product_id
            CROSS JOIN LATERAL (SELECT regexp_match(c.duration, '^P([1-9][0-9]{0,3})([YMWD])$') AS m) d
            WHERE p.app_id = $1::text AND t.app_id = $1::text AND t.environment = $4::text
              AND p.period_type <> 'trial' AND t.price_milliunits > 0 AND t.currency IS NOT NULL AND d.m IS NOT NULL
        ), \(ReportCurrency.rated("rated", facts: "facts", day: "entitlements.utc_day(f.starts_at)")),
        converted AS MATERIALIZED (
            SELECT r.*,
                   CASE WHEN $5::text IS NULL OR r.currency = $5::text
                        THEN round(r.price * r.per_year / r.twelve_count)::bigint
                        ELSE round(r.price * r.dst_rate * r.per_year / (r.src_rate * r.twelve_count))::bigint
                   END AS amount
            FROM rated r
        )
        """

    /// The first period of the range no rate converts: its currency and first day (`$2`/`$3`: its snapshots are the
    /// ends of the days `from - 1` through `to`).
    static let missingRate =
        periods + """

            SELECT CASE WHEN c.src_rate IS NULL THEN c.currency ELSE $5::text END,
                   to_char(entitlements.utc_day(c.starts_at), 'YYYY-MM-DD')
            FROM converted c
            WHERE c.amount IS NULL AND c.ends_at > entitlements.utc_start($2::text::date)
              AND c.starts_at <= entitlements.utc_start($3::text::date + 1)
            ORDER BY c.starts_at
            LIMIT 1
            """

    /// The CTE `keyed`: the converted periods with their groups (`$6`...`$8`: store, product, storefront) and `unit`,
    /// a subscription within the grouping (its store and original transaction, and its product or storefront when
    /// grouped by them) in its reporting currency.
    static let keyed = """
        keyed AS MATERIALIZED (
            SELECT c.*, CASE WHEN $6::boolean THEN c.store END AS g_store,
                   CASE WHEN $7::boolean THEN c.product_id END AS g_product,
                   CASE WHEN $8::boolean THEN c.storefront END AS g_storefront,
                   concat_ws(chr(31), c.store, c.otid, CASE WHEN $7::boolean THEN c.product_id END,
                             CASE WHEN $8::boolean THEN coalesce(c.storefront, chr(30)) END, c.out_currency) AS unit
            FROM converted c
        )
        """

    /// Per day (and store, product, storefront when grouped) and currency: MRR at the day's end, ARR, active paid
    /// subscriptions, and the day's movements (each subscription's MRR at the day's end against the day before's).
    ///
    /// A unit is a subscription within the grouping (its store and original transaction, and its product or storefront
    /// when grouped by them): a move from one product to another is churn of the one and new or reactivation of the
    /// other when grouped by product, expansion or contraction otherwise. New: the unit's first paid period; a
    /// reactivation: a unit that had a paid period before and none at the day before's end.
    static let figures =
        periods + """
            , days AS (
                SELECT g::date AS day, entitlements.utc_start(g::date + 1) AS at
                FROM generate_series($2::text::date - 1, $3::text::date, interval '1 day') g
            ), \(keyed), firsts AS MATERIALIZED (
                SELECT unit, min(starts_at) AS first_at FROM keyed GROUP BY unit
            ), units AS MATERIALIZED (
                SELECT d.day, k.unit, k.store, k.otid, k.g_store, k.g_product, k.g_storefront, k.out_currency,
                       sum(k.amount) AS mrr, string_agg(k.note, ';') AS notes
                FROM days d JOIN keyed k ON k.starts_at <= d.at AND k.ends_at > d.at
                GROUP BY d.day, k.unit, k.store, k.otid, k.g_store, k.g_product, k.g_storefront, k.out_currency
            ), pairs AS (
                SELECT coalesce(c.day, p.day + 1) AS day, coalesce(c.unit, p.unit) AS unit,
                       coalesce(c.store, p.store) AS store, coalesce(c.otid, p.otid) AS otid,
                       coalesce(c.g_store, p.g_store) AS g_store, coalesce(c.g_product, p.g_product) AS g_product,
                       coalesce(c.g_storefront, p.g_storefront) AS g_storefront,
                       coalesce(c.out_currency, p.out_currency) AS currency,
                       coalesce(p.mrr, 0) AS prev, coalesce(c.mrr, 0) AS cur, concat_ws(';', p.notes, c.notes) AS notes
                FROM (SELECT * FROM units WHERE day >= $2::text::date) c
                FULL JOIN (SELECT * FROM units WHERE day < $3::text::date) p ON c.unit = p.unit AND c.day = p.day + 1
            ), grouped AS (
                SELECT q.day, q.g_store, q.g_product, q.g_storefront, q.currency,
                       sum(q.cur)::bigint AS mrr, count(DISTINCT (q.store, q.otid)) FILTER (WHERE q.cur > 0) AS active,
                       coalesce(sum(q.cur) FILTER (WHERE q.prev = 0 AND q.cur > 0
                                                  AND f.first_at > entitlements.utc_start(q.day)), 0)::bigint AS new,
                       coalesce(sum(q.cur - q.prev) FILTER (WHERE q.prev > 0 AND q.cur > q.prev), 0)::bigint AS expansion,
                       coalesce(sum(q.cur - q.prev) FILTER (WHERE q.prev > 0 AND q.cur > 0 AND q.cur < q.prev), 0)::bigint
                           AS contraction,
                       coalesce(-sum(q.prev) FILTER (WHERE q.prev > 0 AND q.cur = 0), 0)::bigint AS churn,
                       coalesce(sum(q.cur) FILTER (WHERE q.prev = 0 AND q.cur > 0
                                                  AND f.first_at <= entitlements.utc_start(q.day)), 0)::bigint
                           AS reactivation,
                       string_agg(q.notes, ';') AS notes
                FROM pairs q JOIN firsts f ON f.unit = q.unit
                GROUP BY q.day, q.g_store, q.g_product, q.g_storefront, q.currency
            )
            SELECT to_char(g.day, 'YYYY-MM-DD'), g.g_product, g.g_store, g.g_storefront, g.currency, g.mrr,
                   g.mrr * 12, g.active, g.new, g.expansion, g.contraction, g.churn, g.reactivation,
                   \(ReportCurrency.distinctNotes("g.notes"))
            FROM grouped g
            ORDER BY g.day, g.g_product, g.g_store, g.g_storefront, g.currency
            """
}
