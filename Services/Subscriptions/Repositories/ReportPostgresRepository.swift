import Logging
import PostgresNIO
import ShopkeeperReports

/// ``ReportRepository`` on PostgreSQL.
///
/// One row per day of the range up to today (per product too when asked), every day present. The flows of a day come
/// from the daily summary (``ReportRollups``); the states at its end are running sums of the summary from the app's
/// first day: `trial` and `active` are the trial and paid periods in force, `expired` the churns less reactivations.
/// The stores do not say when a grace period or a billing retry began or ended once it is over, so `grace_period` and
/// `billing_retry` count the subscriptions in that state now, on each day since their period ended (they are taken out
/// of `expired`), each in the state `subscriptions.effective_state` gives it at the day's end. App trials (the app's own,
/// `POST /v1/customers/{id}/trial`) are the app's, whatever the environment, and so are their conversions
/// (`subscriptions.trial_conversions`): the report reads this schema only.
///
/// Each part is computed once (`MATERIALIZED`) and joined to the grid of days on keys a hash join can use (`coalesce`
/// of a product that is not grouped by): an estimate must not make the planner compute a part once per day.
struct ReportPostgresRepository: ReportRepository {
    let client: PostgresClient
    let logger: Logger

    func subscriptions(appID: String, request: ReportRequest) async throws -> ReportTable {
        let today = try await ReportRollups.days.refresh(appID: appID, client: client, logger: logger)
        let (request, nextFrom) = try await ReportPaging.firstPage(
            of: request, summary: ReportRollups.days.table,
            keys: request.groups(by: "product") ? ["product_id"] : [],
            environment: request.environment ?? .production, appID: appID, client: client, logger: logger)
        let window = ReportWindow(request, today: today)
        let environment: String = request.environment?.rawValue ?? "production"
        let last: String = min(request.to, today).description
        let byProduct = request.groups(by: "product")
        let query = PostgresQuery(
            unsafeSQL: Self.sql,
            binds: try PostgresBindings(
                appID, window.liveDays, window.closedFrom, window.closedTo, environment, last, byProduct))
        var table = try await ReportQuery.table(
            report: "subscriptions", request: request,
            columns: [
                (ReportColumn("day", .dimension), true),
                (ReportColumn("product_id", .dimension), byProduct),
                (ReportColumn("new_subscriptions", .sum), true),
                (ReportColumn("trials_started", .sum), true),
                (ReportColumn("trials_converted", .sum), true),
                (ReportColumn("app_trials_started", .sum), true),
                (ReportColumn("app_trials_converted", .sum), true),
                (ReportColumn("renewals", .sum), true),
                (ReportColumn("reactivations", .sum), true),
                (ReportColumn("churned", .sum), true),
                (ReportColumn("trial", .other), true),
                (ReportColumn("active", .other), true),
                (ReportColumn("grace_period", .other), true),
                (ReportColumn("billing_retry", .other), true),
                (ReportColumn("expired", .other), true),
            ],
            query: query, client: client, logger: logger)
        table.nextFrom = nextFrom
        return table
    }

    /// `$1` app, `$2` today when in the range, `$3` from, `$4` the last closed day of the range, `$5` environment,
    /// `$6` the range's last day up to today, `$7` grouping by product.
    static let sql = """
        WITH facts AS (
            SELECT day, product_id, trial_starts, trial_ends, paid_starts, paid_ends, new_subscriptions,
                   trials_converted, renewals, reactivations, churned
            FROM subscriptions.report_days
            WHERE app_id = $1::text AND environment = $5::text AND day <= $4::text::date
            UNION ALL
            SELECT day, product_id, trial_starts, trial_ends, paid_starts, paid_ends, new_subscriptions,
                   trials_converted, renewals, reactivations, churned
            FROM (\(ReportRollups.days.select)) AS live (
                app_id, day, environment, product_id, trial_starts, trial_ends, paid_starts, paid_ends,
                new_subscriptions, trials_converted, renewals, reactivations, churned)
            WHERE environment = $5::text
        ), flows AS MATERIALIZED (
            SELECT day, CASE WHEN $7::boolean THEN product_id END AS product_id,
                   sum(trial_starts) AS trial_starts, sum(trial_ends) AS trial_ends, sum(paid_starts) AS paid_starts,
                   sum(paid_ends) AS paid_ends, sum(new_subscriptions) AS new_subscriptions,
                   sum(trials_converted) AS trials_converted, sum(renewals) AS renewals,
                   sum(reactivations) AS reactivations, sum(churned) AS churned
            FROM facts GROUP BY 1, 2
        ), base AS MATERIALIZED (
            SELECT product_id, sum(trial_starts - trial_ends) AS trial, sum(paid_starts - paid_ends) AS active,
                   sum(churned - reactivations) AS over
            FROM flows WHERE day < $3::text::date GROUP BY 1
        ), days AS MATERIALIZED (
            SELECT g::date AS day
            FROM generate_series($3::text::date, $6::text::date, interval '1 day') AS g
        ), app_trials AS MATERIALIZED (
            SELECT subscriptions.utc_day(t.started_at) AS day,
                   CASE WHEN $7::boolean THEN t.product_id END AS product_id, count(*) AS started
            FROM subscriptions.trials t
            WHERE t.app_id = $1::text AND t.started_at >= subscriptions.utc_start($3::text::date)
              AND t.started_at < subscriptions.utc_start($6::text::date + 1)
            GROUP BY 1, 2
        ), app_conversions AS MATERIALIZED (
            SELECT subscriptions.utc_day(c.converted_at) AS day,
                   CASE WHEN $7::boolean THEN c.product_id END AS product_id, count(*) AS converted
            FROM subscriptions.trial_conversions c
            WHERE c.app_id = $1::text AND c.converted_at >= subscriptions.utc_start($3::text::date)
              AND c.converted_at < subscriptions.utc_start($6::text::date + 1)
            GROUP BY 1, 2
        ), in_trouble AS MATERIALIZED (
            -- In a grace period or in billing retry now, by subscriptions.effective_state; the candidates are the rows
            -- of the partial index subscriptions_maybe_in_trouble.
            SELECT s.product_id, s.period_type, s.period_started_at, s.expires_at, s.store_ended_at,
                   s.renewal_observed_at, s.grace_expires_at, s.billing_retry, s.paused
            FROM subscriptions.subscriptions s
            WHERE s.app_id = $1::text AND s.environment = $5::text
              AND (s.state IN ('grace_period', 'billing_retry') OR s.billing_retry
                   OR s.grace_expires_at > s.expires_at)
              AND subscriptions.effective_state(
                      s.period_type, s.period_started_at, s.expires_at, s.store_ended_at, s.revoked_at, s.state,
                      s.renewal_observed_at, s.grace_expires_at, s.billing_retry, s.paused, now())
                  IN ('grace_period', 'billing_retry')
        ), trouble AS MATERIALIZED (
            -- Each in its state at each day's end (or now), by the same function and today's facts. A day's end is
            -- its last microsecond: a period that ends at midnight ends on the next day, as the flows count it.
            SELECT d.day, CASE WHEN $7::boolean THEN s.product_id END AS product_id,
                   count(*) FILTER (WHERE x.state = 'grace_period') AS grace,
                   count(*) FILTER (WHERE x.state = 'billing_retry') AS retry
            FROM days d
            CROSS JOIN LATERAL (
                SELECT least(subscriptions.utc_start(d.day + 1) - interval '1 microsecond', now()) AS at) cut
            CROSS JOIN in_trouble s
            CROSS JOIN LATERAL (
                SELECT subscriptions.effective_state(
                    s.period_type, s.period_started_at, s.expires_at, s.store_ended_at, NULL, NULL,
                    s.renewal_observed_at, s.grace_expires_at, s.billing_retry, s.paused, cut.at) AS state) x
            GROUP BY 1, 2
        ), keys AS MATERIALIZED (
            SELECT product_id FROM flows
            UNION SELECT product_id FROM app_trials
            UNION SELECT product_id FROM app_conversions
            UNION SELECT product_id FROM trouble
            UNION SELECT NULL::text WHERE NOT $7::boolean
        )
        SELECT to_char(d.day, 'YYYY-MM-DD'), k.product_id,
               coalesce(f.new_subscriptions, 0)::bigint, coalesce(f.trial_starts, 0)::bigint,
               coalesce(f.trials_converted, 0)::bigint, coalesce(t.started, 0)::bigint,
               coalesce(c.converted, 0)::bigint, coalesce(f.renewals, 0)::bigint,
               coalesce(f.reactivations, 0)::bigint, coalesce(f.churned, 0)::bigint,
               (coalesce(b.trial, 0) + sum(coalesce(f.trial_starts, 0) - coalesce(f.trial_ends, 0)) OVER w)::bigint,
               (coalesce(b.active, 0) + sum(coalesce(f.paid_starts, 0) - coalesce(f.paid_ends, 0)) OVER w)::bigint,
               coalesce(x.grace, 0)::bigint, coalesce(x.retry, 0)::bigint,
               greatest(
                   coalesce(b.over, 0) + sum(coalesce(f.churned, 0) - coalesce(f.reactivations, 0)) OVER w
                       - coalesce(x.grace, 0) - coalesce(x.retry, 0),
                   0)::bigint
        FROM days d
        CROSS JOIN keys k
        LEFT JOIN flows f ON f.day = d.day AND coalesce(f.product_id, '') = coalesce(k.product_id, '')
        LEFT JOIN base b ON coalesce(b.product_id, '') = coalesce(k.product_id, '')
        LEFT JOIN app_trials t ON t.day = d.day AND coalesce(t.product_id, '') = coalesce(k.product_id, '')
        LEFT JOIN app_conversions c ON c.day = d.day AND coalesce(c.product_id, '') = coalesce(k.product_id, '')
        LEFT JOIN trouble x ON x.day = d.day AND coalesce(x.product_id, '') = coalesce(k.product_id, '')
        WHERE k.product_id IS NOT NULL OR NOT $7::boolean
        WINDOW w AS (PARTITION BY k.product_id ORDER BY d.day)
        ORDER BY d.day, k.product_id
        """
}
