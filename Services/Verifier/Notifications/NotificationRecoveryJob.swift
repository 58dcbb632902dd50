import Foundation
import Logging
import ServiceLifecycle
import ShopkeeperCore
import ShopkeeperHTTP

/// Finds the App Store notifications that never reached Shopkeeper (downtime, a network failure, a bad deploy) and
/// processes them as if they had: every ``NotificationRecoverySettings/interval``, for each app with an App Store
/// Server API key and each of Apple's environments it accepts, it reads Apple's history of undelivered
/// notifications (`onlyFailures`, which includes those Apple still retries) from the last seen notification time less
/// an overlap up to now, through ``NotificationRecovery``, and then moves the last seen time to now. In the same run
/// it asks Apple's refund history about the purchases no notification may ever tell of (``RefundLookups``: those
/// bought without an `appAccountToken`).
///
/// Start: a replica's first pass comes as soon as it is ready, not an interval later. It makes every pair due that
/// no run holds and that did not run in the last ``startGrace`` (``NotificationRecoveryRepository/makeDue(unlessRunWithin:)``),
/// then claims as usual, so a restarted service (after a crash, a deploy, a store that was down) reads what it missed
/// at once, and replicas starting together read each pair once between them.
///
/// Replicas: a claim leases each (app, environment) to one replica (`FOR UPDATE SKIP LOCKED`, then a lease in
/// `next_run_at`); a replica shutting down mid-run hands its pair back, one that crashes holds it for the lease.
/// Should two read the same range anyway (a lease ran out), nothing is done twice: the inbox records
/// a notification once per `notificationUUID`, and the cursor only moves forward. A failed run leaves the cursor
/// where it was, so the range is read again.
struct NotificationRecoveryJob: Service, PolledWork {
    let recovery: NotificationRecovery
    let repository: any NotificationRecoveryRepository
    let settings: NotificationRecoverySettings
    /// The refund lookups each run makes after reading the history (`nil`: none).
    var refunds: RefundLookups?
    let startup: StartupGate
    let logger: Logger
    var batchSize = 20
    /// How long a claimed app is this replica's.
    var lease: Duration = .seconds(600)
    /// Pages (of 20) one read goes through before it narrows its range.
    var maxPages = 250

    func run() async throws {
        try await LeasedPoller(
            name: "notification_recovery", work: self, interval: settings.interval, startup: startup, logger: logger
        ).run()
    }

    /// At start, a pair that ran this recently is left to its interval: a replica starting just after another one
    /// read it does not read it again.
    var startGrace: Duration {
        min(settings.interval, .seconds(30))
    }

    /// Makes every pair due that did not run within ``startGrace``; a failure is logged (the pairs run on their
    /// interval).
    func prepare() async {
        do {
            try await repository.makeDue(unlessRunWithin: startGrace)
        } catch {
            logger.warning(
                "could not make notification recovery due at start; it runs on its interval",
                metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Claims due (app, environment) pairs.
    func claim() async throws -> ClaimedBatch<RecoveryCursor> {
        ClaimedBatch(try await repository.claim(limit: batchSize, lease: lease), limit: batchSize)
    }

    func process(_ cursor: RecoveryCursor) async {
        await run(cursor)
    }

    /// Hands pairs not read yet back at once (shutting down), rather than each through a run that can only fail (a
    /// batch of them kept a replica's shutdown waiting past its grace period under load).
    func release(_ cursors: [RecoveryCursor]) async throws {
        for cursor in cursors { try? await repository.release(cursor) }
    }

    /// Reads one app's history in one environment, narrowing the range while it holds more than ``maxPages``.
    func run(_ cursor: RecoveryCursor, now: Date = Date()) async {
        var (start, end) = settings.window(for: cursor, now: now)
        do {
            var outcome = try await read(cursor, from: start, to: end)
            var recorded = outcome.recorded
            var lastRecordedAt = outcome.lastRecordedAt
            while !outcome.complete && end.timeIntervalSince(start) > 60 {
                end = start.addingTimeInterval(end.timeIntervalSince(start) / 2)
                outcome = try await read(cursor, from: start, to: end)
                recorded += outcome.recorded
                lastRecordedAt = max(lastRecordedAt ?? .distantPast, outcome.lastRecordedAt ?? .distantPast)
            }
            await lookUpRefunds(cursor)
            if !outcome.complete {
                logger.error(
                    "notification history too dense to read whole; moving on",
                    metadata: ["app_id": "\(cursor.appID)", "until": "\(end)"])
            }
            if recorded > 0 {
                logger.info(
                    "recovered App Store notifications that never arrived",
                    metadata: [
                        "app_id": "\(cursor.appID)", "environment": "\(cursor.environment.rawValue)",
                        "recorded": "\(recorded)",
                    ])
            }
            try await repository.finish(
                cursor, checkedUntil: end, recovered: recorded,
                lastRecoveredAt: lastRecordedAt.flatMap { $0 == .distantPast ? nil : $0 }, nextRunIn: settings.interval)
        } catch {
            if Task.isCancelled {
                // Shutting down mid-run: hand the pair back now rather than hold it until the lease runs out.
                await uncancelled { try? await repository.release(cursor) }
                return
            }
            logger.warning(
                "notification recovery failed; the range is read again next time",
                metadata: ["app_id": "\(cursor.appID)", "error": "\(error)"])
            try? await repository.fail(cursor, error: Self.describe(error), nextRunIn: settings.interval)
        }
    }

    /// Asks Apple's refund history about the pair's due purchases; a failure is logged (they are asked first next
    /// time) and does not hold back the history's cursor.
    private func lookUpRefunds(_ cursor: RecoveryCursor) async {
        guard let refunds else { return }
        do {
            let outcome = try await refunds.run(appID: cursor.appID, environment: cursor.environment)
            if outcome.applied > 0 {
                logger.info(
                    "found App Store refunds no notification told of",
                    metadata: [
                        "app_id": "\(cursor.appID)", "environment": "\(cursor.environment.rawValue)",
                        "asked": "\(outcome.asked)", "applied": "\(outcome.applied)",
                    ])
            }
        } catch {
            guard !Task.isCancelled else { return }
            logger.warning(
                "refund lookups failed; the purchases are asked about first next time",
                metadata: ["app_id": "\(cursor.appID)", "error": "\(error)"])
        }
    }

    private func read(_ cursor: RecoveryCursor, from start: Date, to end: Date) async throws
        -> NotificationRecovery.Outcome
    {
        try await recovery.recover(
            appID: cursor.appID, environment: cursor.environment, from: start, to: end, onlyFailures: true,
            maxPages: maxPages)
    }

    /// The error in a few words, for the status.
    static func describe(_ error: any Error) -> String {
        if let problem = error as? any ProblemError { return "\(problem.code): \(problem.detail)" }
        return "\(error)"
    }
}
