import Foundation
import Logging
import ServiceLifecycle
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

/// Asks the stores about subscriptions that look stale: a period that ended with no renewal and no final word
/// from the store (`subscriptions.stale_v1`), which is what a missed or lost notification leaves behind. The
/// store's answer (App Store Server API status, Play `subscriptionsv2`, Stripe's subscription and its latest
/// invoice) is recorded and applied like a
/// notification's facts, so a customer whose renewal went unheard is paid up again, and one whose subscription
/// really ended is marked so and not asked about again. Each period end is asked about with growing pauses (the
/// first after `backoff`, doubling up to a day) while it stays stale; replicas share the work through leases.
struct SubscriptionReconciler: Service, PolledWork {
    let reconciliations: any ReconciliationRepository
    let apple: AppleNotifications
    let google: GoogleNotifications
    let stripe: StripeEventProcessor
    let transactions: any TransactionRepository
    let projections: FactProjections
    let settings: ReconcilerSettings
    let startup: StartupGate
    let logger: Logger
    var batchSize = 50
    /// How long a claimed subscription is this replica's before another may ask about it.
    var lease: Duration = .seconds(120)

    func run() async throws {
        try await LeasedPoller(
            name: "subscription_reconciler", work: self, interval: settings.interval, startup: startup,
            logger: logger
        ).run()
    }

    /// Claims one batch of stale subscriptions.
    func claim() async throws -> ClaimedBatch<StaleSubscription> {
        ClaimedBatch(
            try await reconciliations.claim(limit: batchSize, after: settings.after, lease: lease), limit: batchSize)
    }

    /// Asks the store about one subscription and records the outcome.
    func process(_ subscription: StaleSubscription) async {
        let (outcome, pause) = await reconcile(subscription)
        logger.info(
            "reconciled a stale subscription",
            metadata: [
                "app_id": "\(subscription.appID)", "store": "\(subscription.store.rawValue)",
                "original_transaction_id": "\(subscription.originalTransactionID)", "outcome": "\(outcome)",
            ])
        do {
            try await reconciliations.finish(subscription, outcome: outcome, nextCheckIn: pause)
        } catch {
            // The lease runs out and it is asked about again: recording and applying are idempotent.
            logger.warning("could not record a reconciliation", metadata: ["error": "\(error)"])
        }
    }

    /// Hands subscriptions not asked about yet back (shutting down): due again at once.
    func release(_ subscriptions: [StaleSubscription]) async throws {
        try await reconciliations.release(subscriptions)
    }

    /// Asks the store about one subscription and applies what it says; returns the outcome to record and how long
    /// to wait before asking again should it still look stale.
    func reconcile(_ subscription: StaleSubscription) async -> (outcome: String, pause: Duration) {
        let pause = settings.pause(afterAttempt: subscription.attempts)
        do {
            let facts: NotificationFacts?
            switch subscription.store {
            case .appStore:
                facts = try await apple.currentFacts(of: subscription)
            case .playStore:
                let token = try await reconciliations.latestPlayToken(
                    appID: subscription.appID, originalTransactionID: subscription.originalTransactionID)
                facts = try await google.currentFacts(of: subscription, token: token)
            case .stripe:
                facts = try await stripe.currentFacts(of: subscription)
            }
            guard let facts else {
                return ("not asked: no store credentials to ask with", ReconcilerSettings.longestPause)
            }
            let recorded = try await transactions.record(
                facts.facts, appID: subscription.appID, presenter: Presenter(appUserID: nil, deviceID: nil),
                attempt: nil)
            _ = try await projections.apply(
                ApplyRequest(appUserID: nil, deviceID: nil, source: .reconciliation, transactions: recorded),
                renewals: facts.renewals, appID: subscription.appID, requestID: nil)
            await transactions.markApplied(recorded, appID: subscription.appID, for: nil)
            return (Self.summary(facts), pause)
        } catch let error as VerifierError {
            return ("failed: \(error.code): \(error.detail)", pause)
        } catch let problem as RemoteProblem {
            return ("failed: \(problem.code)", pause)
        } catch {
            return ("failed: \(error)", pause)
        }
    }

    /// What the store said, in a few words: the latest period's end and whether it is over.
    static func summary(_ facts: NotificationFacts) -> String {
        let expires = facts.facts.compactMap(\.transaction.expiresDate).max()
        let ended = facts.renewals.first?.periodEnded
        var words = ["checked"]
        if let expires { words.append("expires \(expires.formatted(.iso8601))") }
        if let ended { words.append(ended ? "period over" : "period running") }
        return words.joined(separator: "; ")
    }
}

/// When the reconciler looks and how patiently it asks.
struct ReconcilerSettings: Sendable {
    /// How often an idle replica looks for stale subscriptions.
    var interval: Duration
    /// How long after a period's end with no news a subscription counts as stale.
    var after: Duration
    /// The pause after the first check of a period end; it doubles with each further check.
    var backoff: Duration

    /// The longest pause between two checks of one period end.
    static let longestPause: Duration = .seconds(86_400)

    /// The pause after the `attempt`-th check of one period end.
    func pause(afterAttempt attempt: Int) -> Duration {
        let doublings = Double(min(max(attempt - 1, 0), 20))
        let seconds = Double(backoff.components.seconds) + Double(backoff.components.attoseconds) / 1e18
        return min(.milliseconds(Int64(seconds * 1000 * pow(2, doublings))), Self.longestPause)
    }
}
