import ShopkeeperReports

/// The daily summary behind the subscriptions report (``DailyRollup``), from the periods: each store transaction of a
/// subscription is a period (trial, intro or normal) that starts and ends (at its end, or at its refund or revocation
/// when earlier and not reversed).
///
/// Per UTC day, environment and product: the periods that started and ended, trial and paid apart (their running sums
/// are the subscriptions in force at each day's end), and what each start and end was to its subscription, by the
/// period before or after it in order of start:
/// - a start with no period before it: a new subscription;
/// - a start on a later day than the day the period before it ended: a reactivation (after a lapse, a billing retry
///   that recovered, a resubscription);
/// - otherwise a paid start after a trial is a conversion, after a paid period a renewal;
/// - an end with no period after it starting by the end of that day: churn (its subscription lapsed that day; a later
///   start is its reactivation, so churn less reactivations, summed, is the subscriptions over at a day's end).
///
/// Today's rows count only what happened before now (`least(end of the day, now())`).
enum ReportRollups {
    /// The app's periods (`$1`), each with its subscription's environment: what the daily starts and ends are counted
    /// from. It ends in its `WHERE` clause, for the caller to narrow with `AND`.
    private static let appPeriods = """
        SELECT p.store, p.original_transaction_id, p.transaction_id, p.product_id, p.period_type, p.starts_at,
               (SELECT s.environment FROM subscriptions.subscriptions s
                WHERE s.store = p.store AND s.original_transaction_id = p.original_transaction_id) AS environment
        FROM subscriptions.periods p
        WHERE p.app_id = $1::text
        """

    static let days = DailyRollup(
        name: "subscriptions", table: "subscriptions.report_days", watermarks: "subscriptions.report_rollups",
        closedDaysOnly: true,
        changedDays: """
            SELECT DISTINCT v.day::text FROM subscriptions.periods p
            LEFT JOIN LATERAL (
                SELECT subscriptions.period_end(q.ends_at, q.revoked_at, q.revocation_reversed_at) AS ends
                FROM subscriptions.periods q
                WHERE NOT $3::boolean
                  AND q.store = p.store AND q.original_transaction_id = p.original_transaction_id
                  AND (q.starts_at, q.transaction_id) < (p.starts_at, p.transaction_id)
                ORDER BY q.starts_at DESC, q.transaction_id DESC LIMIT 1
            ) prev ON true
            LEFT JOIN LATERAL (
                SELECT q.starts_at FROM subscriptions.periods q
                WHERE NOT $3::boolean
                  AND q.store = p.store AND q.original_transaction_id = p.original_transaction_id
                  AND (q.starts_at, q.transaction_id) > (p.starts_at, p.transaction_id)
                ORDER BY q.starts_at, q.transaction_id LIMIT 1
            ) next ON true
            CROSS JOIN LATERAL (
                VALUES (subscriptions.utc_day(p.starts_at)), (subscriptions.utc_day(p.ends_at)),
                       (subscriptions.utc_day(p.revoked_at)), (subscriptions.utc_day(prev.ends)),
                       (subscriptions.utc_day(next.starts_at))
            ) AS v(day)
            WHERE p.app_id = $1::text AND (p.changed_tx >= $2::text::xid8 OR $3::boolean) AND v.day IS NOT NULL
            """,
        select: """
            WITH days AS (
                SELECT u.day, subscriptions.utc_start(u.day) AS lo,
                       least(subscriptions.utc_start(u.day + 1), now()) AS hi
                FROM unnest($2::text[]::date[]) AS u(day)
            )
            SELECT $1::text, e.day, e.environment, e.product_id,
                   count(*) FILTER (WHERE e.start AND e.period_type = 'trial'),
                   count(*) FILTER (WHERE NOT e.start AND e.period_type = 'trial'),
                   count(*) FILTER (WHERE e.start AND e.period_type <> 'trial'),
                   count(*) FILTER (WHERE NOT e.start AND e.period_type <> 'trial'),
                   count(*) FILTER (WHERE e.start AND e.neighbour IS NULL),
                   count(*) FILTER (
                       WHERE e.start AND NOT e.gap AND e.period_type <> 'trial' AND e.neighbour = 'trial'),
                   count(*) FILTER (
                       WHERE e.start AND NOT e.gap AND e.period_type <> 'trial' AND e.neighbour <> 'trial'),
                   count(*) FILTER (WHERE e.start AND e.gap),
                   count(*) FILTER (WHERE NOT e.start AND e.gap)
            FROM (
                SELECT d.day, true AS start, p.environment, p.product_id, p.period_type,
                       prev.period_type AS neighbour,
                       coalesce(subscriptions.utc_day(p.starts_at) > subscriptions.utc_day(prev.ends), false) AS gap
                FROM days d
                CROSS JOIN LATERAL (
                    \(appPeriods) AND p.starts_at >= d.lo AND p.starts_at < d.hi
                      AND subscriptions.period_end(p.ends_at, p.revoked_at, p.revocation_reversed_at) > p.starts_at
                    OFFSET 0
                ) p
                LEFT JOIN LATERAL (
                    SELECT q.period_type,
                           subscriptions.period_end(q.ends_at, q.revoked_at, q.revocation_reversed_at) AS ends
                    FROM subscriptions.periods q
                    WHERE q.store = p.store AND q.original_transaction_id = p.original_transaction_id
                      AND (q.starts_at, q.transaction_id) < (p.starts_at, p.transaction_id)
                      AND subscriptions.period_end(q.ends_at, q.revoked_at, q.revocation_reversed_at) > q.starts_at
                    ORDER BY q.starts_at DESC, q.transaction_id DESC LIMIT 1
                ) prev ON true
                UNION ALL
                SELECT d.day, false AS start, p.environment, p.product_id, p.period_type, NULL AS neighbour,
                       next.starts_at IS NULL OR next.starts_at >= subscriptions.utc_start(d.day + 1) AS gap
                FROM days d
                CROSS JOIN LATERAL (
                    \(appPeriods)
                      AND subscriptions.period_end(p.ends_at, p.revoked_at, p.revocation_reversed_at) >= d.lo
                      AND subscriptions.period_end(p.ends_at, p.revoked_at, p.revocation_reversed_at) < d.hi
                      AND subscriptions.period_end(p.ends_at, p.revoked_at, p.revocation_reversed_at) > p.starts_at
                    OFFSET 0
                ) p
                LEFT JOIN LATERAL (
                    SELECT q.starts_at FROM subscriptions.periods q
                    WHERE q.store = p.store AND q.original_transaction_id = p.original_transaction_id
                      AND (q.starts_at, q.transaction_id) > (p.starts_at, p.transaction_id)
                      AND subscriptions.period_end(q.ends_at, q.revoked_at, q.revocation_reversed_at) > q.starts_at
                    ORDER BY q.starts_at, q.transaction_id LIMIT 1
                ) next ON true
            ) e
            GROUP BY e.day, e.environment, e.product_id
            """)
}
