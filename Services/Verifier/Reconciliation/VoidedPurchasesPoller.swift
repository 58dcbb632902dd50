import Foundation
import Logging
import ServiceLifecycle
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperStores

/// Polls each app's Play voided purchases (`purchases.voidedpurchases.list`) on a schedule, so that a refund or
/// chargeback whose real-time notification was lost, or never configured, still takes the purchase back.
///
/// Per app a cursor (``VoidedPurchasesCursor``, in `verifier.google_voided_cursors`) says where the next window
/// starts and which page of the open window comes next; it is saved after every page, so a restart resumes where
/// the last page left off and skips nothing. A purchase the verifier has recorded and not yet seen revoked is handed
/// to the notification inbox as the voided-purchase notification Google would have pushed
/// (``GoogleNotifications/recordPolledVoid(_:orderID:token:isSubscription:appID:packageName:)``), under an id of its
/// own per order: it is then processed by the very code that processes pushed ones. Nothing is applied twice:
/// a void already recorded (pushed, validated, or polled before) is passed over, the inbox keeps one entry per order,
/// and the apply itself revokes a purchase and counts its refund once.
///
/// Replicas share the apps: a claim leases a cursor to one replica (`FOR UPDATE SKIP LOCKED`, a lease id checked by
/// every save), and one whose lease ran out can no longer move it.
struct VoidedPurchasesPoller: PolledService {
    static let pollerName = "google_voided_purchases"
    let cursors: any VoidedCursorRepository
    let credentials: any CredentialsRepository
    let client: GooglePlayClient
    let notifications: GoogleNotifications
    /// How often each app is polled, and how long after a failed poll it is tried again.
    let interval: Duration
    let startup: StartupGate
    let logger: Logger
    /// Apps claimed at once.
    var batchSize = 20
    /// How long a claimed app is this replica's before another may poll it (each saved page extends it).
    var lease: Duration = .seconds(300)
    /// Voided purchases per page (Google's most is 1000).
    var pageSize = 1000
    /// Pages one poll of an app reads before giving other apps their turn; the rest follows in the next round.
    var pagesPerPoll = 50

    /// Claims the apps due for a poll.
    func claim() async throws -> ClaimedBatch<VoidedCursorLease> {
        ClaimedBatch(try await cursors.claim(limit: batchSize, lease: lease), limit: batchSize)
    }

    /// Polls one app and releases its cursor, due again after the poll's pause.
    func process(_ lease: VoidedCursorLease) async {
        let (pause, failure) = await poll(lease)
        if let failure {
            logger.warning(
                "voided Play purchases not read; polling again later",
                metadata: ["app_id": "\(lease.appID)", "reason": "\(failure)"])
        }
        do {
            // Even when shutting down: the cursor's progress is saved, the app due again after `pause`.
            try await uncancelled { try await cursors.release(lease, pause: pause, error: failure) }
        } catch {
            // The lease runs out and the app is polled again from the saved cursor.
            logger.warning(
                "could not release a voided-purchase cursor", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Hands apps not polled yet back (shutting down): due again at once.
    func release(_ leases: [VoidedCursorLease]) async throws {
        for lease in leases { try await cursors.handBack(lease) }
    }

    /// Reads the app's voided purchases from its cursor on, page by page; returns when to poll it next and why this
    /// poll stopped short, if it did.
    func poll(_ lease: VoidedCursorLease) async -> (pause: Duration, failure: String?) {
        let app: GoogleCredentials
        do {
            guard let found = try await credentials.google(appID: lease.appID) else {
                return (interval, "the app has no Google credentials")
            }
            app = found
        } catch {
            return (interval, "credentials unreadable: \(error)")
        }
        var cursor = lease.cursor
        for _ in 0..<pagesPerPoll {
            let request = cursor.request(now: Date().appleMilliseconds)
            let page: GoogleVoidedPurchasesListResponse
            do {
                page = try await client.voidedPurchases(
                    startMillis: request.startMillis, pageToken: request.pageToken, maxResults: pageSize,
                    credentials: app)
            } catch  where error.code == GooglePlayClient.refusedVoidedQuery {
                // A page token Google forgot, or a window it refuses: start the window again (what is listed twice is
                // recognized), and try once more in the next round.
                cursor = cursor.restarted(after: request)
                _ = try? await cursors.save(
                    lease, cursor: cursor, found: 0, lastVoidedMillis: nil, extendBy: self.lease)
                return (interval, "\(error.code): \(error.detail)")
            } catch {
                return (interval, "\(error.code): \(error.detail)")
            }
            var found = 0
            for voided in page.voidedPurchases ?? [] {
                do {
                    if try await hand(voided, appID: lease.appID, packageName: app.packageName) { found += 1 }
                } catch {
                    // The page is read again next time, from the saved cursor: what was handed on is recognized.
                    return (interval, "a voided purchase was not recorded: \(error)")
                }
            }
            let newest = (page.voidedPurchases ?? []).compactMap { $0.voidedTimeMillis.flatMap(Int64.init) }.max()
            cursor = cursor.advanced(past: request, next: page.tokenPagination?.nextPageToken)
            do {
                guard
                    try await cursors.save(
                        lease, cursor: cursor, found: found, lastVoidedMillis: newest, extendBy: self.lease)
                else { return (interval, "the lease ran out; another replica polls this app") }
            } catch {
                return (interval, "the cursor was not saved: \(error)")
            }
            if found > 0 {
                logger.info(
                    "voided Play purchases found by polling",
                    metadata: ["app_id": "\(lease.appID)", "count": "\(found)"])
            }
            if cursor.windowEndMillis == nil { return (interval, nil) }
        }
        // More pages remain: this app's turn comes again at once.
        return (.zero, nil)
    }

    /// Hands one listed voided purchase to the inbox, unless the verifier never recorded its order (no customer here
    /// holds it) or has recorded its revocation already; returns whether it was handed on now.
    func hand(_ voided: GoogleVoidedPurchase, appID: String, packageName: String) async throws -> Bool {
        guard let token = voided.purchaseToken, !token.isEmpty else { return false }
        // The recorded fact's transaction id is the order id, or the token when Google gives none.
        let orderID = voided.orderId.flatMap { $0.isEmpty ? nil : $0 } ?? token
        guard let known = try await cursors.knownOrder(appID: appID, orderID: orderID), !known.revoked else {
            return false
        }
        return try await notifications.recordPolledVoid(
            voided, orderID: orderID, token: token, isSubscription: known.isSubscription, appID: appID,
            packageName: packageName)
    }
}
