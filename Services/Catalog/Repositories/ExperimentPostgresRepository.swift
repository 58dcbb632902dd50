import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// Experiments on PostgreSQL. Every write runs through ``CatalogWrites`` (so it bumps the catalog's revision, and
/// replicas serving offerings see a start or stop within their refresh interval) and checks the experiment's state
/// under the app's revision lock, so two admins' writes of one app run one after the other.
struct ExperimentPostgresRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    private var writes: CatalogWrites { CatalogWrites(client: client, logger: logger) }

    /// The app's experiments, newest first.
    func list(appID: String) async throws -> [Experiment] {
        try await Self.read(
            client.query(Self.select(appID: appID), logger: logger))
    }

    /// One experiment; throws ``CatalogError/experimentNotFound`` when absent.
    func experiment(appID: String, experimentID: String) async throws -> Experiment {
        let found = try await Self.read(
            client.query(
                Self.select(appID: appID, experimentID: experimentID), logger: logger))
        guard let experiment = found.first else { throw CatalogError.experimentNotFound(experimentID) }
        return experiment
    }

    /// Adds a draft; throws ``CatalogError/experimentExists`` when the id is taken (by any experiment, ever).
    func create(appID: String, experiment: Experiment, dryRun: Bool) async throws -> Experiment {
        try await writes.write(appID: appID, dryRun: dryRun) { connection, _ in
            let audience = try experiment.audience.map { String(decoding: try JSONBody.encode($0), as: UTF8.self) }
            try await connection.run(
                """
                INSERT INTO catalog.experiments (app_id, experiment_id, name, audience)
                VALUES (\(appID), \(experiment.experimentID), \(experiment.name), \(audience)::jsonb)
                """,
                logger: logger)
            try await writeVariants(experiment, appID: appID, on: connection)
            return try await read(appID: appID, experimentID: experiment.experimentID, on: connection)
        }
    }

    /// Replaces a draft's name, audience and variants. A running experiment's are fixed
    /// (``CatalogError/experimentRunning``), a stopped one's too (``CatalogError/experimentStopped``).
    func update(appID: String, experiment: Experiment, dryRun: Bool) async throws -> Experiment {
        try await writes.write(appID: appID, dryRun: dryRun) { connection, _ in
            let id = experiment.experimentID
            switch try await state(appID: appID, experimentID: id, on: connection) {
            case .running: throw CatalogError.experimentRunning(id)
            case .stopped: throw CatalogError.experimentStopped(id)
            case .draft: break
            }
            let audience = try experiment.audience.map { String(decoding: try JSONBody.encode($0), as: UTF8.self) }
            try await connection.run(
                """
                UPDATE catalog.experiments SET name = \(experiment.name), audience = \(audience)::jsonb
                WHERE app_id = \(appID) AND experiment_id = \(id)
                """,
                logger: logger)
            try await connection.run(
                "DELETE FROM catalog.experiment_variants WHERE app_id = \(appID) AND experiment_id = \(id)",
                logger: logger)
            try await writeVariants(experiment, appID: appID, on: connection)
            return try await read(appID: appID, experimentID: id, on: connection)
        }
    }

    /// Starts a draft (`.running`) or stops a running experiment, for good (`.stopped`). Asking for the state it is in
    /// changes nothing (a retried call is answered alike). A stopped experiment is never started again
    /// (``CatalogError/experimentStopped``); a draft was never running, so it is not stopped
    /// (``CatalogError/experimentNotRunning``).
    func move(appID: String, experimentID: String, to target: ExperimentState, dryRun: Bool) async throws
        -> Experiment
    {
        try await writes.write(appID: appID, dryRun: dryRun) { connection, _ in
            let current = try await state(appID: appID, experimentID: experimentID, on: connection)
            switch (current, target) {
            case (.stopped, .running): throw CatalogError.experimentStopped(experimentID)
            case (.draft, .stopped): throw CatalogError.experimentNotRunning(experimentID)
            case (.draft, .running), (.running, .stopped):
                // `started_at` once, `stopped_at` once: the table's checks hold each to its state.
                try await connection.run(
                    """
                    UPDATE catalog.experiments
                    SET state = \(target.rawValue),
                        started_at = coalesce(started_at, date_trunc('second', now())),
                        stopped_at = CASE WHEN \(target.rawValue) = 'stopped' THEN date_trunc('second', now()) END
                    WHERE app_id = \(appID) AND experiment_id = \(experimentID)
                    """,
                    logger: logger)
            default: break
            }
            return try await read(appID: appID, experimentID: experimentID, on: connection)
        }
    }

    /// Records customers' first exposures to experiments in one statement: for each, the first one stays, however
    /// many answers race (here or on other replicas).
    func recordExposures(_ exposures: [Exposure]) async throws {
        guard !exposures.isEmpty else { return }
        try await client.run(
            """
            INSERT INTO catalog.experiment_exposures (app_id, experiment_id, customer_key, variant_key, app_user_id)
            SELECT * FROM unnest(\(exposures.map(\.appID))::text[], \(exposures.map(\.experimentID))::text[],
                                 \(exposures.map(\.customerKey))::text[], \(exposures.map(\.variant))::text[],
                                 \(exposures.map(\.appUserID))::text[])
            ON CONFLICT DO NOTHING
            """,
            logger: logger)
    }

    // MARK: - Helpers

    private func state(appID: String, experimentID: String, on connection: PostgresConnection) async throws
        -> ExperimentState
    {
        let rows = try await connection.checkedQuery(
            """
            SELECT state FROM catalog.experiments WHERE app_id = \(appID) AND experiment_id = \(experimentID)
            FOR UPDATE
            """,
            logger: logger)
        for try await text in rows.decode(String.self) {
            if let state = ExperimentState(rawValue: text) { return state }
        }
        throw CatalogError.experimentNotFound(experimentID)
    }

    private func writeVariants(_ experiment: Experiment, appID: String, on connection: PostgresConnection)
        async throws
    {
        let keys = experiment.variants.map(\.key)
        let offerings = experiment.variants.map(\.offeringID)
        let weights = experiment.variants.map(\.weight)
        let positions = Array(0..<experiment.variants.count)
        try await connection.run(
            """
            INSERT INTO catalog.experiment_variants (app_id, experiment_id, position, variant_key, offering_id, weight)
            SELECT \(appID), \(experiment.experimentID), * FROM unnest(\(positions)::integer[], \(keys)::text[],
                                                                   \(offerings)::text[], \(weights)::integer[])
            """,
            logger: logger)
    }

    private func read(appID: String, experimentID: String, on connection: PostgresConnection) async throws
        -> Experiment
    {
        let found = try await Self.read(
            connection.checkedQuery(
                Self.select(appID: appID, experimentID: experimentID), logger: logger))
        guard let experiment = found.first else { throw CatalogError.experimentNotFound(experimentID) }
        return experiment
    }

    /// The app's experiments as their API documents (dates in whole seconds, UTC), newest first; only `experimentID`
    /// when given.
    static func select(appID: String, experimentID: String? = nil) -> PostgresQuery {
        """
        SELECT json_strip_nulls(json_build_object(
            'experiment_id', e.experiment_id, 'name', e.name, 'audience', e.audience, 'state', e.state,
            'started_at', to_char(e.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
            'stopped_at', to_char(e.stopped_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
            'variants', (SELECT json_agg(json_build_object('key', v.variant_key, 'offering_id', v.offering_id,
                                                           'weight', v.weight) ORDER BY v.position)
                         FROM catalog.experiment_variants v
                         WHERE v.app_id = e.app_id AND v.experiment_id = e.experiment_id)))::text
        FROM catalog.experiments e
        WHERE e.app_id = \(appID) AND (\(experimentID)::text IS NULL OR e.experiment_id = \(experimentID))
        ORDER BY e.created_at DESC, e.experiment_id
        """
    }

    private static func read(_ rows: PostgresRowSequence) async throws -> [Experiment] {
        var experiments: [Experiment] = []
        for try await text in rows.decode(String.self) {
            experiments.append(try JSONBody.decode(Experiment.self, from: Data(text.utf8)))
        }
        return experiments
    }
}
