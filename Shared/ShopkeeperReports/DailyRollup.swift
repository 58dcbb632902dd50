import Logging
import PostgresNIO
import ShopkeeperDatabase

/// A per-day summary of one app's facts, kept in the service's own schema and brought up to date by the reads that
/// need it: a report over a year then adds up a few hundred summary rows per day instead of every fact of the year.
///
/// Every fact table it summarizes has a `changed_tx xid8` column, set to the writing transaction's id on insert (a
/// default) and on every update that changes the row (a trigger). Each app's summary has a watermark
/// (`<schema>.report_rollups`): every fact changed by a transaction below it is in the summary. A refresh, under a
/// transaction-scoped advisory lock per app and summary:
///
/// 1. reads the watermark and takes the new one, `pg_snapshot_xmin(pg_current_snapshot())`: every transaction below
///    it has ended, and what it committed is visible to the statements that follow;
/// 2. asks ``changedDays`` for the days of the facts changed at or above the old watermark (every day with a fact
///    on the first refresh);
/// 3. deletes those days' summary rows and inserts them again from the facts (``select``);
/// 4. stores the new watermark.
///
/// A summary whose figures depend on the time as well as on the facts (a subscription is in force until its period
/// ends, whether or not anything is written then) holds closed days only (``closedDaysOnly``: before today, UTC): a
/// refresh also builds the days that closed since the last one, and today's figures are worked out from the facts at
/// each read (``select`` for today). Any other summary holds today too, rebuilt when today's facts change.
///
/// A transaction that was still running at step 1 commits with an id at or above the new watermark, so the next
/// refresh finds what it changed. Statements run in `READ COMMITTED`, each after the lock: two refreshes never
/// interleave, and none writes figures older than the ones before it.
package struct DailyRollup: Sendable {
    /// Unique in the schema: the watermark's name and part of the lock's key.
    package let name: String
    /// `$1` app id, `$2` watermark (`xid8` as text), `$3` whether every fact counts (the first refresh): one `date`
    /// column, the UTC days whose summary rows the facts changed.
    package let changedDays: String
    /// `$1` app id, `$2` days (`date[]`): one row per summary row of those days, in ``table``'s column order. Each
    /// fact is read where an index finds it (a day's by a lateral subquery with `OFFSET 0`, which the planner may not
    /// flatten, a row's purchase by its primary key): a plan from estimates (ten days of an `unnest`, an empty
    /// summary table) must not turn a day's refresh into a scan of every fact.
    package let select: String
    /// The summary table (`schema.table`), whose first two columns are `app_id` and `day`.
    package let table: String
    /// The schema's watermark table (`schema.report_rollups`).
    package let watermarks: String
    /// Whether the summary holds days before today only (its figures change with the time, not only with the facts).
    package let closedDaysOnly: Bool

    /// The most days one statement sums up.
    static let daysPerStatement = 31

    package init(
        name: String, table: String, watermarks: String, closedDaysOnly: Bool = false, changedDays: String,
        select: String
    ) {
        self.name = name
        self.table = table
        self.watermarks = watermarks
        self.closedDaysOnly = closedDaysOnly
        self.changedDays = changedDays
        self.select = select
    }

    /// Brings the app's summary up to date; returns today (UTC, by the database's clock).
    @discardableResult
    package func refresh(appID: String, client: PostgresClient, logger: Logger) async throws -> ReportDay {
        try await client.transaction(logger: logger) { connection in
            try await refresh(appID: appID, on: connection, logger: logger)
        }
    }

    /// ``refresh(appID:client:logger:)`` inside the caller's transaction.
    package func refresh(appID: String, on connection: PostgresConnection, logger: Logger) async throws -> ReportDay {
        let key = "report:\(name):\(appID)"
        // The first summary of a big app is statements estimated at millions of rows (see ReportQuery).
        try await ReportQuery.configure(connection, logger: logger)
        try await connection.run("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))", logger: logger)
        var watermark: (tx: String, builtThrough: ReportDay?)?
        let marks = try await connection.checkedQuery(
            PostgresQuery(
                unsafeSQL: "SELECT tx::text, built_through::text FROM \(watermarks) WHERE app_id = $1 AND rollup = $2",
                binds: try PostgresBindings(appID, name)),
            logger: logger)
        for try await (tx, built) in marks.decode((String, String).self) {
            watermark = (tx, ReportDay(built))
        }
        var horizon = "0"
        var today = ReportDay(ordinal: 0)
        let now = try await connection.checkedQuery(
            "SELECT pg_snapshot_xmin(pg_current_snapshot())::text, (now() AT TIME ZONE 'UTC')::date::text",
            logger: logger)
        for try await (xmin, day) in now.decode((String, String).self) {
            horizon = xmin
            today = ReportDay(day) ?? today
        }
        var days: Set<ReportDay> = []
        let changed = try await connection.checkedQuery(
            PostgresQuery(
                unsafeSQL: changedDays, binds: try PostgresBindings(appID, watermark?.tx ?? "0", watermark == nil)),
            logger: logger)
        for try await text in changed.decode(String.self) {
            if let day = ReportDay(text), !closedDaysOnly || day < today { days.insert(day) }
        }
        let lastBuilt = closedDaysOnly ? ReportDay(ordinal: today.ordinal - 1) : today
        if closedDaysOnly, let built = watermark?.builtThrough, built < lastBuilt {
            for ordinal in (built.ordinal + 1)...lastBuilt.ordinal { days.insert(ReportDay(ordinal: ordinal)) }
        }
        if days.isEmpty, watermark?.builtThrough == lastBuilt { return today }
        // A month per statement: the first summary of a big app is many statements within the statement timeout,
        // not one past it.
        let sorted: [String] = days.sorted().map(\.description)
        for start in stride(from: 0, to: sorted.count, by: Self.daysPerStatement) {
            let list = Array(sorted[start..<min(start + Self.daysPerStatement, sorted.count)])
            try await connection.run(
                PostgresQuery(
                    unsafeSQL: "DELETE FROM \(table) WHERE app_id = $1 AND day = ANY($2::text[]::date[])",
                    binds: try PostgresBindings(appID, list)),
                logger: logger)
            try await connection.run(
                PostgresQuery(unsafeSQL: "INSERT INTO \(table) \(select)", binds: try PostgresBindings(appID, list)),
                logger: logger)
        }
        try await connection.run(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO \(watermarks) (app_id, rollup, tx, built_through, built_at)
                    VALUES ($1, $2, $3::text::xid8, $4::text::date, now())
                    ON CONFLICT (app_id, rollup) DO UPDATE
                    SET tx = excluded.tx, built_through = excluded.built_through, built_at = excluded.built_at
                    """,
                binds: try PostgresBindings(appID, name, horizon, lastBuilt.description)),
            logger: logger)
        logger.debug(
            "report summary refreshed", metadata: ["rollup": "\(name)", "app_id": "\(appID)", "days": "\(days.count)"])
        return today
    }
}
