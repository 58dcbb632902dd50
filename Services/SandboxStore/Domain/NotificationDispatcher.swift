import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import ShopkeeperStores

/// Sends what happens in the sandbox to the apps' servers, as the stores do: App Store Server Notifications V2
/// (`{"signedPayload": ...}`) and Play real-time developer notifications (a Pub/Sub push with an OIDC bearer token).
///
/// Each notification is signed once, logged, and delivered in the background: first attempts in the order the
/// notifications happened, then retries with a doubling delay while the receiver answers non-2xx or nothing, up to
/// a bounded number of attempts. Nothing is sent to a store whose URL is unset.
///
/// The log (the newest ``maximumLogSize`` of the last ``retention``, Apple's 180 days of history) is journaled in the
/// state directory (``NotificationSnapshot``) like the store's purchases: a notification is logged before the
/// operation that caused it answers, every attempt is logged as it ends, and a restart (a crash included) finds the
/// whole log again, so Get Notification History still lists what was sent before it, and the deliveries that had not
/// succeeded nor run out of attempts are attempted again, in order. The targets (URLs, `hold`) live in memory: a
/// restart takes them from the settings again and does not hold.
actor NotificationDispatcher: Service {
    static let maximumLogSize = 10_000
    /// How long a notification stays in the log: Apple keeps 180 days of notification history.
    static let retention: TimeInterval = 180 * 86_400
    /// A receiver gets this long to answer.
    static let timeout: TimeAmount = .seconds(5)

    private var appleURL: URL?
    private var googleURL: URL?
    private var googleAudience: String?
    private var stripeURL: URL?
    /// The webhook signing secrets: each attempt is signed with every one (`v1=` each), as Stripe does while a
    /// secret is rolled.
    private let stripeSecrets: [String]
    /// New notifications wait in the log (`PUT /sandbox/notifications {"hold": true}`).
    private var hold = false
    /// Ids of the notifications held, in order.
    private var held: [String] = []
    /// The log, journaled.
    private var state: NotificationSnapshot
    private let journal: StateJournal<NotificationSnapshot>
    /// Delivery id -> position in `state.deliveries`.
    private var positions: [String: Int] = [:]
    /// Pub/Sub message ids: numeric, increasing, and (starting from the clock) not reused after a restart.
    private var nextMessageNumber = Int64(Date().timeIntervalSince1970 * 1000) * 100
    private let appleSigner: AppleSigner
    private let googleSigner: GooglePushSigner
    /// The keys Google push tokens are signed with (`GET /google/oauth2/v3/certs`).
    nonisolated var googleKeySet: GoogleJSONWebKeySet { googleSigner.keySet }
    private let client: HTTPClient
    private let attempts: Int
    private let retryDelay: Duration
    private let logger: Logger
    private let queue: AsyncStream<String>
    private let enqueue: AsyncStream<String>.Continuation

    /// A dispatcher delivering from the log `journal` keeps (loaded now).
    init(
        appleURL: URL?, googleURL: URL?, googleAudience: String?, appleSigner: AppleSigner,
        googleSigner: GooglePushSigner, client: HTTPClient, attempts: Int, retryDelay: Duration,
        journal: StateJournal<NotificationSnapshot>, logger: Logger, stripeURL: URL? = nil,
        stripeSecrets: [String] = ["whsec_shopkeeper_sandbox"]
    ) throws {
        self.appleURL = appleURL
        self.stripeURL = stripeURL
        self.stripeSecrets = stripeSecrets
        self.googleURL = googleURL
        self.googleAudience = googleAudience
        self.appleSigner = appleSigner
        self.googleSigner = googleSigner
        self.client = client
        self.attempts = attempts
        self.retryDelay = retryDelay
        self.logger = logger
        (queue, enqueue) = AsyncStream.makeStream(of: String.self)
        self.journal = journal
        state = try journal.load()
        positions = Dictionary(state.deliveries.enumerated().map { ($1.id, $0) }) { first, _ in first }
    }

    /// Delivers queued notifications, one attempt after the other, until shutdown; first those of the log that an
    /// earlier run left undelivered with attempts to spare.
    nonisolated func run() async throws {
        await resumePending()
        await cancelWhenGracefulShutdown {
            for await id in self.queue {
                await self.attempt(id)
            }
        }
    }

    /// Queues the logged deliveries that neither succeeded nor ran out of attempts (a restart cut their retries), to
    /// their store's target as it is now only: a state directory reused with other targets (another run's ports)
    /// would otherwise send the new run's notifications only after every old one had timed out against nothing.
    /// Those stay in the log, undelivered, and can still be sent with `POST /sandbox/notifications/{id}/resend`.
    private func resumePending() {
        let pending = state.deliveries.filter { !$0.delivered && $0.attempts < attempts }
        let resumed = pending.filter { $0.url == target(ofStore: $0.store)?.absoluteString }
        if !pending.isEmpty {
            logger.info(
                "resuming notification deliveries",
                metadata: ["count": "\(resumed.count)", "to_other_targets": "\(pending.count - resumed.count)"])
        }
        for delivery in resumed { enqueue.yield(delivery.id) }
    }

    /// Where notifications of `store` (a delivery's `store`) go now.
    private func target(ofStore store: String) -> URL? {
        switch store {
        case "apple": appleURL
        case "google": googleURL
        case "stripe": stripeURL
        default: nil
        }
    }

    // MARK: targets

    /// Where notifications go now.
    func targets() -> NotificationTargets {
        NotificationTargets(
            appleURL: appleURL?.absoluteString, googleURL: googleURL?.absoluteString,
            googleAudience: googleAudience ?? googleURL?.absoluteString, hold: hold,
            stripeURL: stripeURL?.absoluteString)
    }

    /// Changes the targets named in `change` (a `nil` inside removes one).
    func update(_ change: NotificationTargetsChange) -> NotificationTargets {
        if let url = change.appleURL { appleURL = url }
        if let url = change.googleURL { googleURL = url }
        if let audience = change.googleAudience { googleAudience = audience }
        if let url = change.stripeURL { stripeURL = url }
        if let holding = change.hold {
            hold = holding
            // Released: what was held goes out in order (also what was resent meanwhile).
            if !holding {
                for id in held { enqueue.yield(id) }
                held.removeAll()
            }
        }
        return targets()
    }

    // MARK: sending

    /// Signs, logs and queues a notification for each event; returns their ids (none for a store without URL).
    @discardableResult
    func send(_ events: [StoreEvent], at now: Date = Date()) -> [String] {
        var ids: [String] = []
        for event in events {
            do {
                guard let delivery = try sign(event, at: now) else { continue }
                append(delivery)
                queue(delivery.id)
                ids.append(delivery.id)
            } catch {
                logger.error("notification not signed", metadata: ["error": "\(error)"])
            }
        }
        return ids
    }

    /// Sends one notification whether or not a store's URL is set: fails when none is.
    func sendOne(_ event: StoreEvent, at now: Date = Date()) throws -> NotificationDelivery {
        guard let delivery = try sign(event, at: now) else {
            if case .apple = event { throw SandboxStoreError.notificationURLNotSet("apple") }
            if case .stripe = event { throw SandboxStoreError.notificationURLNotSet("stripe") }
            throw SandboxStoreError.notificationURLNotSet("google")
        }
        append(delivery)
        queue(delivery.id)
        return delivery
    }

    private func sign(_ event: StoreEvent, at now: Date) throws -> NotificationDelivery? {
        switch event {
        case .apple(let apple):
            guard let url = appleURL else { return nil }
            let uuid = UUID().uuidString.lowercased()
            let signed = try appleSigner.notification(apple, uuid: uuid, at: now)
            let body = try JSONEncoder().encode(AppleResponseBodyV2(signedPayload: signed))
            var delivery = NotificationDelivery(
                id: uuid, store: "apple", type: apple.type.rawValue, subtype: apple.subtype?.rawValue,
                transactionId: apple.transaction?.transactionId,
                originalTransactionId: apple.transaction?.originalTransactionId, purchaseToken: nil,
                url: url.absoluteString, createdAt: now, body: String(decoding: body, as: UTF8.self))
            delivery.bundleId = apple.bundleId
            delivery.environment = apple.environment.rawValue
            delivery.signedPayload = signed
            return delivery
        case .google(let google):
            guard let url = googleURL else { return nil }
            nextMessageNumber += 1
            let messageId = String(nextMessageNumber)
            let envelope = try PubSubPushEnvelope(
                notification: google.notification, messageId: messageId,
                publishTime: GoogleTime.rfc3339(milliseconds: now.appleMilliseconds),
                subscription: "projects/shopkeeper-sandbox/subscriptions/play-rtdn-push")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            return NotificationDelivery(
                id: messageId, store: "google", type: google.name, subtype: nil, transactionId: nil,
                originalTransactionId: nil, purchaseToken: google.purchaseToken, url: url.absoluteString,
                createdAt: now, body: String(decoding: try encoder.encode(envelope), as: UTF8.self),
                audience: googleAudience ?? url.absoluteString)
        case .stripe(let stripe):
            guard let url = stripeURL else { return nil }
            var body = stripe.json
            // Stripe counts the endpoints still to deliver to: this one.
            body["pending_webhooks"] = 1
            return NotificationDelivery(
                id: stripe.id, store: "stripe", type: stripe.type, subtype: nil, transactionId: nil,
                originalTransactionId: nil, purchaseToken: nil, url: url.absoluteString, createdAt: now,
                body: String(decoding: try body.data(), as: UTF8.self))
        }
    }

    /// Delivers `id` in turn, or holds it.
    private func queue(_ id: String) {
        if hold { held.append(id) } else { enqueue.yield(id) }
    }

    /// Logs `delivery` (journaled before this returns), dropping the oldest beyond the log's bounds.
    private func append(_ delivery: NotificationDelivery) {
        positions[delivery.id] = state.deliveries.count
        state.deliveries.append(delivery)
        let horizon = delivery.createdAt.addingTimeInterval(-Self.retention)
        let expired = state.deliveries.prefix { $0.createdAt < horizon }.count
        let excess = state.deliveries.count - Self.maximumLogSize
        if expired > 0 || excess > Self.maximumLogSize / 10 {
            state.deliveries.removeFirst(max(expired, excess))
            positions = Dictionary(state.deliveries.enumerated().map { ($1.id, $0) }) { first, _ in first }
        }
        save()
    }

    /// Journals what changed in the log. A failure to write is logged: the notification still goes out, but a crash
    /// before the next successful write would forget it.
    private func save() {
        do {
            try journal.record(&state)
        } catch {
            logger.error("notification log not saved", metadata: ["error": "\(error)"])
        }
    }

    // MARK: delivery

    /// Attempts to deliver `id` once more and, while it fails with attempts to spare, schedules the next attempt.
    private func attempt(_ id: String) async {
        guard let delivery = positions[id].map({ state.deliveries[$0] }), delivery.attempts < attempts else { return }
        let number = delivery.attempts + 1
        let status = await post(delivery)
        record(id) {
            $0.attempts += 1
            $0.lastStatus = status
            $0.delivered = $0.delivered || (200..<300).contains(status)
            if $0.store == "apple" {
                $0.sendAttempts.append(
                    AppStoreSendAttempt(
                        attemptDate: Date().appleMilliseconds, sendAttemptResult: Self.sendAttemptResult(status)))
            }
        }
        guard !(200..<300).contains(status) else { return }
        guard number < attempts else {
            logger.warning(
                "notification not delivered",
                metadata: ["id": "\(id)", "url": "\(delivery.url)", "attempts": "\(number)", "status": "\(status)"])
            return
        }
        let delay = retryDelay * (1 << min(number - 1, 20))
        Task {
            try? await Task.sleep(for: delay)
            await self.attempt(id)
        }
    }

    /// Changes the logged delivery `id` (journaled).
    private func record(_ id: String, _ change: (inout NotificationDelivery) -> Void) {
        guard let position = positions[id] else { return }
        change(&state.deliveries[position])
        save()
    }

    /// Sends a logged notification again `times` times, `concurrency` at once (the same body: a store's retry, or
    /// a flood of them); the statuses, 0 where nothing answered.
    func resend(_ id: String, times: Int, concurrency: Int) async throws -> [Int] {
        guard let delivery = positions[id].map({ state.deliveries[$0] }) else {
            throw SandboxStoreError.notificationNotFound(id)
        }
        let statuses = await post(delivery, times: times, concurrency: concurrency)
        record(id) {
            $0.resends += times
            $0.lastStatus = statuses.last
            $0.delivered = $0.delivered || statuses.contains { (200..<300).contains($0) }
        }
        return statuses
    }

    /// POSTs a notification `times` times, `concurrency` at once.
    nonisolated private func post(_ delivery: NotificationDelivery, times: Int, concurrency: Int) async -> [Int] {
        var statuses: [Int] = []
        var remaining = times
        while remaining > 0 {
            let batch = min(remaining, concurrency)
            remaining -= batch
            let answers = await withTaskGroup(of: Int.self, returning: [Int].self) { group in
                for _ in 0..<batch { group.addTask { await self.post(delivery) } }
                var answers: [Int] = []
                for await status in group { answers.append(status) }
                return answers
            }
            statuses += answers
        }
        return statuses
    }

    /// POSTs a notification (a Google push with a fresh token); the status, 0 when nothing answered.
    nonisolated private func post(_ delivery: NotificationDelivery) async -> Int {
        var request = HTTPClientRequest(url: delivery.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        if let audience = delivery.audience {
            guard let token = try? googleSigner.token(audience: audience) else { return 0 }
            request.headers.add(name: "authorization", value: "Bearer \(token)")
        }
        if delivery.store == "stripe" {
            // Signed at each attempt, as Stripe signs: a retry carries a fresh timestamp.
            request.headers.add(
                name: "stripe-signature",
                value: StripeWebhookSignature.header(
                    payload: Array(delivery.body.utf8), secrets: stripeSecrets, timestamp: Date()))
        }
        request.body = .bytes(ByteBuffer(string: delivery.body))
        do {
            let response = try await client.execute(request, timeout: Self.timeout)
            _ = try? await response.body.collect(upTo: 1 << 20)
            return Int(response.status.code)
        } catch {
            return 0
        }
    }

    /// Apple's name for how an attempt that got `status` (0: no answer) went.
    static func sendAttemptResult(_ status: Int) -> String {
        switch status {
        case 200..<300: "SUCCESS"
        case 0: "NO_RESPONSE"
        default: "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
        }
    }

    // MARK: log

    /// The App Store notifications of one app and environment that were sent, or held, oldest first: what Apple's
    /// Get Notification History lists.
    func appleHistory(bundleId: String, environment: AppleEnvironment) -> [NotificationDelivery] {
        state.deliveries.filter {
            $0.store == "apple" && $0.bundleId == bundleId && $0.environment == environment.rawValue
        }
    }

    /// The log, oldest first, optionally of one store.
    func deliveries(store: String?) -> [NotificationDelivery] {
        guard let store else { return Array(state.deliveries) }
        return state.deliveries.filter { $0.store == store }
    }

    func delivery(_ id: String) throws -> NotificationDelivery {
        guard let position = positions[id] else { throw SandboxStoreError.notificationNotFound(id) }
        return state.deliveries[position]
    }

    func clearLog() {
        state.deliveries.removeAll { _ in true }
        positions.removeAll()
        save()
    }
}
