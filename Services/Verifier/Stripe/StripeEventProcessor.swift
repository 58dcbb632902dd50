import Foundation
import Logging
import ShopkeeperClients
import ShopkeeperModels

/// Processes one recorded Stripe event: reads it and its objects back from Stripe (``StripeEvents``), records the
/// facts once per transaction like any verified proof, and hands them to subscriptions and entitlements for the
/// customer the purchase was made for (its Checkout Session's `client_reference_id`), then marks the event
/// processed. The webhook does this before it answers; the notification worker does it for an event whose webhook
/// could not (Stripe unreachable, a crash), with backoff, so none is lost.
struct StripeEventProcessor: Sendable {
    let events: StripeEvents
    let credentials: any CredentialsRepository
    let transactions: any TransactionRepository
    let projections: FactProjections
    let inbox: any NotificationInbox
    /// The first backoff of an event whose processing failed.
    let retryBase: Duration
    let logger: Logger

    /// What became of one event.
    enum Result: Sendable {
        /// Its facts are recorded and applied (or it stood for none).
        case processed(StripeEvents.Outcome)
        /// It can never be processed (Stripe does not confirm it, entitlements refused it): marked failed.
        case failed(reason: String)
        /// Not now (Stripe, the database or a service unreachable): left pending, retried with backoff.
        case retry(VerifierError)
    }

    /// Processes a claimed notification and records the result in the inbox.
    func process(_ notification: ReceivedNotification) async -> Result {
        do {
            guard let stripe = try await credentials.stripe(appID: notification.appID) else {
                throw VerifierError.storeNotConfigured(.stripe)
            }
            let outcome = try await events.outcome(
                eventID: notification.id, appID: notification.appID, key: stripe.secretKey)
            let recorded = try await transactions.record(
                outcome.facts.facts, appID: notification.appID,
                presenter: Presenter(appUserID: outcome.appUserID, deviceID: nil), attempt: nil)
            if !recorded.isEmpty || !outcome.facts.renewals.isEmpty {
                _ = try await projections.apply(
                    ApplyRequest(
                        appUserID: outcome.appUserID, deviceID: nil, source: .notification, transactions: recorded),
                    renewals: outcome.facts.renewals, appID: notification.appID, requestID: nil)
                await transactions.markApplied(recorded, appID: notification.appID, for: outcome.appUserID)
            }
            try? await inbox.markProcessed([notification])
            return .processed(outcome)
        } catch let error as VerifierError where error.isVerdict {
            return await fail(notification, reason: "\(error.code): \(error.detail)")
        } catch let verdict as RemoteProblem {
            return await fail(notification, reason: verdict.code)
        } catch let error as VerifierError {
            try? await inbox.retryLater([notification], reason: "\(error.code): \(error.detail)", base: retryBase)
            return .retry(error)
        } catch {
            try? await inbox.retryLater([notification], reason: "\(error)", base: retryBase)
            return .retry(.applyPending(reason: "the event could not be recorded or applied now"))
        }
    }

    private func fail(_ notification: ReceivedNotification, reason: String) async -> Result {
        logger.notice(
            "stripe event not granted",
            metadata: ["app_id": "\(notification.appID)", "id": "\(notification.id)", "reason": "\(reason)"])
        try? await inbox.markFailed(notification, reason: reason)
        return .failed(reason: reason)
    }
}
