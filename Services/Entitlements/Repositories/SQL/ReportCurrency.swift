/// The one reporting currency of the charts, in SQL: each fact's rates from the app's loaded exchange rates
/// (`entitlements.exchange_rates`), by the rule `docs/charts.md` states. Used by every chart that reports amounts, so
/// the rule is written once.
///
/// Binds the statements that use it share: `$1` the app, `$5` the reporting currency (null: each amount in its own
/// currency).
enum ReportCurrency {
    /// The CTE `base`: the app's base currency (null when it loaded no rate).
    static let base = """
        base AS MATERIALIZED (
            SELECT (SELECT r.base FROM entitlements.exchange_rates r WHERE r.app_id = $1::text LIMIT 1) AS base
        )
        """

    /// The CTE `name` over the CTE `facts`, whose rows have a `currency` and a UTC `day` (an expression of `f`):
    /// every column of `facts`, `out_currency` (the reporting currency, or the fact's own), and, when it converts, the
    /// rates of the reporting currency's `dst_rate` and the fact's `src_rate` against the base (the latest loaded on or
    /// before the day; the base's own is 1; null when none is loaded) and `note`, the rates it used
    /// (`USD/EUR=1.0962@2025-01-02`: 1 EUR bought 1.0962 USD that day). An amount `x` converts as
    /// `x * dst_rate / src_rate`, rounded once by the caller.
    static func rated(_ name: String, facts: String, day: String) -> String {
        """
        \(name) AS MATERIALIZED (
            SELECT f.*, CASE WHEN $5::text IS NULL THEN f.currency ELSE $5::text END AS out_currency,
                   src.rate AS src_rate, dst.rate AS dst_rate,
                   CASE WHEN $5::text IS NOT NULL AND f.currency <> $5::text THEN
                        concat_ws(';',
                            CASE WHEN f.currency <> b.base THEN f.currency || '/' || b.base || '=' || src.rate::text
                                 || '@' || to_char(src.day, 'YYYY-MM-DD') END,
                            CASE WHEN $5::text <> b.base THEN $5::text || '/' || b.base || '=' || dst.rate::text
                                 || '@' || to_char(dst.day, 'YYYY-MM-DD') END)
                   END AS note
            FROM \(facts) f
            CROSS JOIN base b
            LEFT JOIN LATERAL (
                SELECT CASE WHEN f.currency = b.base THEN 1::numeric ELSE r.rate END AS rate, r.day
                FROM (SELECT 1) one
                LEFT JOIN LATERAL (
                    SELECT r.rate, r.day FROM entitlements.exchange_rates r
                    WHERE r.app_id = $1::text AND r.currency = f.currency AND r.day <= \(day)
                    ORDER BY r.day DESC LIMIT 1
                ) r ON f.currency <> b.base
            ) src ON $5::text IS NOT NULL AND f.currency <> $5::text
            LEFT JOIN LATERAL (
                SELECT CASE WHEN $5::text = b.base THEN 1::numeric ELSE r.rate END AS rate, r.day
                FROM (SELECT 1) one
                LEFT JOIN LATERAL (
                    SELECT r.rate, r.day FROM entitlements.exchange_rates r
                    WHERE r.app_id = $1::text AND r.currency = $5::text AND r.day <= \(day)
                    ORDER BY r.day DESC LIMIT 1
                ) r ON $5::text <> b.base
            ) dst ON $5::text IS NOT NULL AND f.currency <> $5::text
        )
        """
    }

    /// The rates of a row's facts, listed once each and sorted (`notes` holds them `;`-separated, possibly repeated).
    static func distinctNotes(_ notes: String) -> String {
        """
        (SELECT string_agg(DISTINCT x COLLATE "C", ';' ORDER BY x COLLATE "C")
         FROM unnest(string_to_array(\(notes), ';')) x WHERE x <> '')
        """
    }
}
