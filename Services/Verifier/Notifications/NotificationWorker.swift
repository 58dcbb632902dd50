import Logging
import ServiceLifecycle
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// Processes recorded store notifications in the background: each one's facts are recorded like any verified
/// proof and handed to subscriptions and entitlements, one apply per app and batch. A notification stays pending
/// (and is retried with backoff) until that succeeds, so a crash or an outage loses none; one that can never
/// succeed is marked failed with the reason. Several replicas share the work (`FOR UPDATE SKIP LOCKED` leases), each
/// through a ``LeasedPoller`` of ``concurrency`` lanes.
struct NotificationWorker: Service, PolledWork {
    let inbox: any NotificationInbox
    let apple: AppleNotifications
    let google: GoogleNotifications
    /// Stripe's events are processed one at a time, each for the customer it names.
    let stripe: StripeEventProcessor
    let transactions: any TransactionRepository
    let projections: FactProjections
    /// How often an idle worker looks, and the first backoff of a failed attempt.
    let interval: Duration
    let startup: StartupGate
    let logger: Logger
    var batchSize = 100
    /// How long a claimed batch is this worker's before another may take it.
    var lease: Duration = .seconds(60)
    /// Batches processed at once: each waits on the database and two services most of the time, so with too few
    /// the backlog grows while the machine has time to spare (4 kept up with about 60 % of a saturated intake).
    var concurrency = 8
    /// Notifications of one batch verified and recorded at once.
    var preparing = 8

    func run() async throws {
        try await LeasedPoller(
            name: "notification_worker", work: self, interval: interval, lanes: concurrency, startup: startup,
            logger: logger
        ).run()
    }

    /// One app's notifications of a claimed batch, applied together.
    struct AppNotifications: Sendable {
        var appID: String
        var notifications: [ReceivedNotification]
    }

    /// Claims one batch, grouped by app.
    func claim() async throws -> ClaimedBatch<AppNotifications> {
        let claimed = try await inbox.claim(limit: batchSize, lease: lease)
        let apps = Dictionary(grouping: claimed, by: \.appID).map {
            AppNotifications(appID: $0.key, notifications: $0.value)
        }
        return ClaimedBatch(apps, count: claimed.count, limit: batchSize)
    }

    func process(_ app: AppNotifications) async {
        await process(app.notifications, appID: app.appID)
    }

    /// Makes the notifications due again at once (shutdown), their attempt not counted.
    func release(_ apps: [AppNotifications]) async throws {
        try await inbox.release(apps.flatMap(\.notifications))
    }

    /// Records the facts of one app's notifications and applies them together.
    func process(_ notifications: [ReceivedNotification], appID: String) async {
        let isStripe = { (notification: ReceivedNotification) in notification.store == StorePlatform.stripe.rawValue }
        for notification in notifications where isStripe(notification) {
            _ = await stripe.process(notification)
        }
        let notifications = notifications.filter { !isStripe($0) }
        guard !notifications.isEmpty else { return }
        var recorded: [StoreTransaction] = []
        var renewals: [SubscriptionRenewalFacts] = []
        var events: [AppEvent] = []
        var ready: [ReceivedNotification] = []
        for outcome in await prepare(notifications, appID: appID) {
            switch outcome {
            case .ready(let notification, let transactions, let facts, let appEvents):
                recorded += transactions
                renewals += facts
                events += appEvents
                ready.append(notification)
            case .failed(let notification, let reason):
                await fail(notification, reason: reason)
            case .retry(let notification, let reason):
                await retry([notification], reason: reason)
            }
        }
        guard !ready.isEmpty else { return }
        do {
            var outcomes: [TransactionOutcome] = []
            // Renewal info alone goes to subscriptions only (`FactProjections.apply` calls entitlements with
            // transactions or a presenter, never with nothing).
            if !recorded.isEmpty || !renewals.isEmpty {
                let applied = try await projections.apply(
                    ApplyRequest(appUserID: nil, deviceID: nil, source: .notification, transactions: recorded),
                    renewals: renewals, appID: appID, requestID: nil)
                await transactions.markApplied(recorded, appID: appID, for: nil)
                outcomes = applied.response.outcomes
            }
            // App-level facts (consent rescinded, external purchase tokens): one event per notification, however
            // often this runs.
            try await projections.publish(events, appID: appID, requestID: nil)
            await done(await answered(ready, outcomes: outcomes))
        } catch let verdict as RemoteProblem {
            // A verdict on the batch: apply each notification alone, so one refused fact holds up no other.
            guard ready.count > 1 else { return await fail(ready[0], reason: verdict.code) }
            for notification in ready { await process([notification], appID: appID) }
        } catch {
            await retry(ready, reason: "\(error)")
        }
    }

    /// What became of one notification before the apply.
    enum Prepared: Sendable {
        /// Its facts are recorded and ready to apply, its app-level facts ready to publish.
        case ready(ReceivedNotification, [StoreTransaction], [SubscriptionRenewalFacts], [AppEvent])
        /// It can never be processed.
        case failed(ReceivedNotification, reason: String)
        /// It could not be processed now.
        case retry(ReceivedNotification, reason: String)
    }

    /// Verifies and records each notification's facts, `preparing` at a time (each mostly waits on the database
    /// or the store's API), and returns the outcomes in the notifications' order.
    func prepare(_ notifications: [ReceivedNotification], appID: String) async -> [Prepared] {
        await withTaskGroup(of: (Int, Prepared).self) { group in
            var pending = notifications.enumerated().makeIterator()
            func addNext() {
                guard let (index, notification) = pending.next() else { return }
                group.addTask { (index, await prepare(notification, appID: appID)) }
            }
            for _ in 0..<preparing { addNext() }
            var outcomes: [Prepared?] = Array(repeating: nil, count: notifications.count)
            while let (index, outcome) = await group.next() {
                outcomes[index] = outcome
                addNext()
            }
            return outcomes.compactMap { $0 }
        }
    }

    private func prepare(_ notification: ReceivedNotification, appID: String) async -> Prepared {
        do {
            let facts = try await facts(of: notification)
            let recorded = try await transactions.record(
                facts.facts, appID: appID, presenter: Presenter(appUserID: nil, deviceID: nil), attempt: nil)
            return .ready(notification, recorded, facts.renewals, facts.appEvents)
        } catch let error as VerifierError where error.isVerdict {
            return .failed(notification, reason: "\(error.code): \(error.detail)")
        } catch {
            return .retry(notification, reason: "\(error)")
        }
    }

    /// Answers the notifications that ask the store for an answer (`CONSUMPTION_REQUEST`) and keeps what was
    /// answered; returns those that are done (one whose answer could not be sent is tried again later).
    private func answered(_ notifications: [ReceivedNotification], outcomes: [TransactionOutcome]) async
        -> [ReceivedNotification]
    {
        var finished: [ReceivedNotification] = []
        for notification in notifications {
            guard notification.store == StorePlatform.appStore.rawValue,
                notification.type == AppleNotificationType.consumptionRequest.rawValue
            else {
                finished.append(notification)
                continue
            }
            do {
                let answer = try await apple.answerConsumptionRequest(notification, outcomes: outcomes)
                logger.info(
                    "consumption request", metadata: ["id": "\(notification.id)", "answer": "\(answer)"])
                try? await inbox.recordAnswer(notification, answer: answer)
                finished.append(notification)
            } catch  where error.isVerdict {
                try? await inbox.recordAnswer(notification, answer: "not answered: \(error.code): \(error.detail)")
                finished.append(notification)
            } catch {
                await retry([notification], reason: "the consumption answer could not be sent: \(error)")
            }
        }
        return finished
    }

    private func facts(of notification: ReceivedNotification) async throws -> NotificationFacts {
        switch notification.store {
        case StorePlatform.appStore.rawValue: try await apple.facts(of: notification)
        case StorePlatform.playStore.rawValue: try await google.facts(of: notification)
        default: NotificationFacts()
        }
    }

    private func done(_ notifications: [ReceivedNotification]) async {
        do {
            try await inbox.markProcessed(notifications)
        } catch {
            // The lease runs out and they are processed again: applying is idempotent.
            logger.warning("could not mark notifications processed", metadata: ["error": "\(error)"])
        }
    }

    private func fail(_ notification: ReceivedNotification, reason: String) async {
        logger.notice(
            "store notification cannot be processed",
            metadata: ["app_id": "\(notification.appID)", "id": "\(notification.id)", "reason": "\(reason)"])
        try? await inbox.markFailed(notification, reason: reason)
    }

    private func retry(_ notifications: [ReceivedNotification], reason: String) async {
        logger.warning(
            "store notifications not processed yet; retrying later",
            metadata: ["count": "\(notifications.count)", "reason": "\(reason)"])
        try? await inbox.retryLater(notifications, reason: reason, base: interval)
    }
}
