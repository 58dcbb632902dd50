import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels

/// One app's App Store notification history in one environment, claimed by one recovery run for a while.
struct RecoveryCursor: Sendable, Equatable {
    var appID: String
    var environment: StoreEnvironment
    /// Apple's history is read completely up to here: the last seen notification time. `nil` before the first run.
    var checkedUntil: Date?
}

/// Where the recovery job stands for one app and environment (`GET /v1/admin/stores/apple/notification-recovery`).
struct RecoveryStatus: Sendable, Equatable, Encodable {
    var environment: String
    var checkedUntil: Date?
    /// The signing date of the newest notification the job recorded that Shopkeeper had not received.
    var lastRecoveredAt: Date?
    /// Notifications the job recorded that Shopkeeper had not received.
    var recovered: Int
    var lastRunAt: Date?
    var nextRunAt: Date
    var lastError: String?

    enum CodingKeys: String, CodingKey {
        case environment, recovered
        case checkedUntil = "checked_until"
        case lastRecoveredAt = "last_recovered_at"
        case lastRunAt = "last_run_at"
        case nextRunAt = "next_run_at"
        case lastError = "last_error"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(environment, forKey: .environment)
        try container.encode(checkedUntil, forKey: .checkedUntil)
        try container.encode(lastRecoveredAt, forKey: .lastRecoveredAt)
        try container.encode(recovered, forKey: .recovered)
        try container.encode(lastRunAt, forKey: .lastRunAt)
        try container.encode(nextRunAt, forKey: .nextRunAt)
        try container.encode(lastError, forKey: .lastError)
    }
}

/// The notification recovery job's memory (`verifier.notification_recovery`): per app and environment, how far
/// Apple's notification history has been read, and a lease so that one replica reads it at a time.
protocol NotificationRecoveryRepository: Sendable {
    /// Claims up to `limit` (app, environment) pairs whose run is due, each for `lease`: every app with an App Store
    /// Server API key, in each environment of Apple's it accepts. Other replicas skip a claimed pair until its lease
    /// runs out or ``finish(_:checkedUntil:recovered:lastRecoveredAt:nextRunIn:)`` sets the next run.
    func claim(limit: Int, lease: Duration) async throws -> [RecoveryCursor]
    /// Makes every pair due now that no run holds and none ran in the last `recently`: called as a replica starts, so
    /// that a restart (a crash, a deploy) reads what it missed at once instead of after the interval. Of several
    /// replicas starting together, each makes the same pairs due and the claims give each pair to one of them.
    func makeDue(unlessRunWithin recently: Duration) async throws
    /// Records a complete read up to `checkedUntil` (never moving the cursor back) and when to run next.
    func finish(
        _ cursor: RecoveryCursor, checkedUntil: Date, recovered: Int, lastRecoveredAt: Date?, nextRunIn: Duration
    ) async throws
    /// Records a failed run: the cursor stays, the error is kept, the next run is after `nextRunIn`.
    func fail(_ cursor: RecoveryCursor, error: String, nextRunIn: Duration) async throws
    /// Hands a claimed pair back unread (its replica is shutting down): due again at once, nothing recorded.
    func release(_ cursor: RecoveryCursor) async throws
    /// The job's state for one app, one row per environment it has run for.
    func status(appID: String) async throws -> [RecoveryStatus]
}

/// ``NotificationRecoveryRepository`` on PostgreSQL.
struct NotificationRecoveryPostgresRepository: NotificationRecoveryRepository {
    let client: PostgresClient
    let logger: Logger

    func claim(limit: Int, lease: Duration) async throws -> [RecoveryCursor] {
        let leaseSeconds = Double(lease.milliseconds) / 1000
        // Apps with a key, in Apple's environments they accept, get a row the first time (their first run is due).
        try await client.query(
            """
            INSERT INTO verifier.notification_recovery (app_id, environment)
            SELECT c.app_id, e.environment
            FROM verifier.store_credentials c
            CROSS JOIN LATERAL jsonb_array_elements_text(c.public_view -> 'environments') AS e(environment)
            WHERE c.store = 'apple' AND jsonb_typeof(c.public_view -> 'api_key') = 'object'
              AND e.environment IN ('production', 'sandbox')
            ON CONFLICT (app_id, environment) DO NOTHING
            """,
            logger: logger)
        // A due row is locked by one replica's statement and leased by moving its next run past the lease.
        let rows = try await client.query(
            """
            UPDATE verifier.notification_recovery r
            SET next_run_at = now() + make_interval(secs => \(leaseSeconds)),
                claimed_until = now() + make_interval(secs => \(leaseSeconds))
            FROM (
                SELECT n.app_id, n.environment FROM verifier.notification_recovery n
                JOIN verifier.store_credentials c ON c.app_id = n.app_id AND c.store = 'apple'
                WHERE n.next_run_at <= now() AND jsonb_typeof(c.public_view -> 'api_key') = 'object'
                  AND c.public_view -> 'environments' ? n.environment
                ORDER BY n.next_run_at
                LIMIT \(limit)
                FOR UPDATE OF n SKIP LOCKED
            ) due
            WHERE r.app_id = due.app_id AND r.environment = due.environment
            RETURNING r.app_id, r.environment, r.checked_until
            """,
            logger: logger)
        var claimed: [RecoveryCursor] = []
        for try await (appID, environment, checkedUntil) in rows.decode((String, String, Date?).self) {
            guard let environment = StoreEnvironment(rawValue: environment) else { continue }
            claimed.append(RecoveryCursor(appID: appID, environment: environment, checkedUntil: checkedUntil))
        }
        return claimed
    }

    func makeDue(unlessRunWithin recently: Duration) async throws {
        let seconds = Double(recently.milliseconds) / 1000
        try await client.query(
            """
            UPDATE verifier.notification_recovery SET next_run_at = now()
            WHERE next_run_at > now() AND (claimed_until IS NULL OR claimed_until < now())
              AND (last_run_at IS NULL OR last_run_at < now() - make_interval(secs => \(seconds)))
            """,
            logger: logger)
    }

    func finish(
        _ cursor: RecoveryCursor, checkedUntil: Date, recovered: Int, lastRecoveredAt: Date?, nextRunIn: Duration
    ) async throws {
        let environment: String = cursor.environment.rawValue
        let seconds = Double(nextRunIn.milliseconds) / 1000
        try await client.query(
            """
            UPDATE verifier.notification_recovery SET
                checked_until = greatest(checked_until, \(checkedUntil)),
                last_recovered_at = greatest(last_recovered_at, \(lastRecoveredAt)),
                recovered = recovered + \(recovered), last_run_at = now(), last_error = NULL,
                next_run_at = now() + make_interval(secs => \(seconds)), claimed_until = NULL
            WHERE app_id = \(cursor.appID) AND environment = \(environment)
            """,
            logger: logger)
    }

    func fail(_ cursor: RecoveryCursor, error: String, nextRunIn: Duration) async throws {
        let environment: String = cursor.environment.rawValue
        let seconds = Double(nextRunIn.milliseconds) / 1000
        try await client.query(
            """
            UPDATE verifier.notification_recovery SET
                last_run_at = now(), last_error = \(error), next_run_at = now() + make_interval(secs => \(seconds)),
                claimed_until = NULL
            WHERE app_id = \(cursor.appID) AND environment = \(environment)
            """,
            logger: logger)
    }

    func release(_ cursor: RecoveryCursor) async throws {
        let environment: String = cursor.environment.rawValue
        try await client.query(
            """
            UPDATE verifier.notification_recovery SET next_run_at = now(), claimed_until = NULL
            WHERE app_id = \(cursor.appID) AND environment = \(environment)
            """,
            logger: logger)
    }

    func status(appID: String) async throws -> [RecoveryStatus] {
        let rows = try await client.query(
            """
            SELECT environment, checked_until, last_recovered_at, recovered, last_run_at, next_run_at, last_error
            FROM verifier.notification_recovery WHERE app_id = \(appID) ORDER BY environment
            """,
            logger: logger)
        var found: [RecoveryStatus] = []
        for try await (environment, checked, recoveredAt, recovered, ran, next, error) in rows.decode(
            (String, Date?, Date?, Int, Date?, Date, String?).self)
        {
            found.append(
                RecoveryStatus(
                    environment: environment, checkedUntil: checked, lastRecoveredAt: recoveredAt,
                    recovered: recovered, lastRunAt: ran, nextRunAt: next, lastError: error))
        }
        return found
    }
}
