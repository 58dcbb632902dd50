import Foundation
import Logging
import ShopkeeperModels
import ShopkeeperStores

/// Reads an app's App Store notification history (Apple's *Get Notification History*) over a time range and feeds
/// every `signedPayload` in it to ``AppleNotifications/receive(signedPayload:requestedApp:)``, exactly as if Apple had
/// delivered it: verified, recorded once per `notificationUUID` in the inbox, and processed by the
/// ``NotificationWorker``. A notification that was received as well is a duplicate there and changes nothing, so a
/// range may be read any number of times, by any number of replicas.
struct NotificationRecovery: Sendable {
    let credentials: any CredentialsRepository
    let api: AppStoreServerAPIClient
    let notifications: AppleNotifications
    let logger: Logger

    /// What one read of a range found.
    struct Outcome: Sendable, Equatable, Encodable {
        var environment: String
        /// Notifications in Apple's answer.
        var notifications = 0
        /// Recorded now: Shopkeeper had not received them.
        var recorded = 0
        /// Received (or recovered) before.
        var alreadyRecorded = 0
        /// Refused on verification (not this app's, a bad signature), as a delivery of them would have been.
        var refused = 0
        /// Every page was read; `false` when the page limit stopped the read (a narrower range reads the rest).
        var complete = false
        /// The signing date of the newest notification recorded now.
        var lastRecordedAt: Date?

        enum CodingKeys: String, CodingKey {
            case environment, notifications, recorded, refused, complete
            case alreadyRecorded = "already_recorded"
            case lastRecordedAt = "last_recorded_at"
        }
    }

    /// Reads `environment`'s history of `appID` from `start` to `end`, at most `maxPages` pages of 20. Throws
    /// ``AppStoreSupportError/historyRefused(appleCode:)`` when Apple refuses the range, and any failure to record a
    /// notification (the range is then read again later: nothing is lost).
    func recover(
        appID: String, environment: StoreEnvironment, from start: Date, to end: Date, onlyFailures: Bool,
        maxPages: Int
    ) async throws -> Outcome {
        guard let credentials = try await credentials.apple(appID: appID) else {
            throw VerifierError.storeNotConfigured(.apple)
        }
        guard let key = credentials.apiKey else { throw AppStoreSupportError.apiKeyRequired }
        let request = AppStoreNotificationHistoryRequest(
            startDate: start.appleMilliseconds, endDate: end.appleMilliseconds, onlyFailures: onlyFailures ? true : nil)
        var outcome = Outcome(environment: environment.rawValue)
        var token: String?
        for _ in 0..<maxPages {
            let page: AppStoreNotificationHistoryResponse
            switch try await api.notificationHistory(
                request, paginationToken: token, environment: environment, credentials: credentials, key: key)
            {
            case .answered(let answer): page = answer
            case .refused(_, let code): throw AppStoreSupportError.historyRefused(appleCode: code)
            }
            for item in page.notificationHistory ?? [] {
                guard let signed = item.signedPayload else { continue }
                outcome.notifications += 1
                do {
                    let (notification, duplicate) = try await notifications.receive(
                        signedPayload: signed, requestedApp: appID)
                    if duplicate {
                        outcome.alreadyRecorded += 1
                    } else {
                        outcome.recorded += 1
                        outcome.lastRecordedAt = max(
                            outcome.lastRecordedAt ?? .distantPast, notification.signedAt ?? end)
                    }
                } catch let error as VerifierError where error.isVerdict {
                    outcome.refused += 1
                    logger.notice(
                        "a notification of Apple's history was refused",
                        metadata: ["app_id": "\(appID)", "code": "\(error.code)"])
                }
            }
            token = page.hasMore == true ? page.paginationToken : nil
            if token == nil {
                outcome.complete = true
                break
            }
        }
        return outcome
    }
}

/// When the recovery job reads Apple's notification history.
struct NotificationRecoverySettings: Sendable {
    /// How often each app's history is read.
    var interval: Duration
    /// How far before the last seen notification time each read starts again, for notifications Apple lists late
    /// and for clocks that disagree.
    var overlap: Duration
    /// App Store purchases without an `appAccountToken` whose refund history one run asks for (``RefundLookups``).
    var refundLookupsPerRun = 100
    /// Where the first read of an app starts: about the span of Apple's retries (five over some six and a half days),
    /// so that anything Apple may still be retrying is found.
    var firstLookback: Duration = .seconds(7 * 86_400)

    /// How much history Apple keeps: 180 days in production, 30 in the sandbox.
    static func retention(_ environment: StoreEnvironment) -> TimeInterval {
        (environment == .production ? 180 : 30) * 86_400
    }

    /// The range a run reads at `now`: from the cursor less the overlap (from the first lookback on a first run), no
    /// earlier than Apple keeps (a minute to spare), to now.
    func window(for cursor: RecoveryCursor, now: Date) -> (start: Date, end: Date) {
        let seconds = { (duration: Duration) in Double(duration.milliseconds) / 1000 }
        var start =
            cursor.checkedUntil.map { $0.addingTimeInterval(-seconds(overlap)) }
            ?? now.addingTimeInterval(-seconds(firstLookback))
        start = max(start, now.addingTimeInterval(60 - Self.retention(cursor.environment)))
        return (min(start, now.addingTimeInterval(-1)), now)
    }
}
