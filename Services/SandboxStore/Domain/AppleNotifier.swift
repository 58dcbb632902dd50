import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ShopkeeperStores

/// Sends App Store Server Notifications V2 for what happens in the sandbox to one URL (set at start or through
/// `PUT /sandbox/notifications`), as Apple does: `{"signedPayload": ...}` signed with the sandbox's chain, retried
/// with backoff until the receiver answers 2xx. Nothing is sent while no URL is set.
actor AppleNotifier {
    /// One notification and how its delivery went.
    struct Delivery: Codable, Sendable {
        var notificationUUID: String
        var type: String
        var subtype: String?
        var transactionId: String?
        var attempts: Int
        var lastStatus: Int?
        var delivered: Bool
        var signedPayload: String

        enum CodingKeys: String, CodingKey {
            case type, subtype, attempts, delivered
            case notificationUUID = "notification_uuid"
            case transactionId = "transaction_id"
            case lastStatus = "last_status"
            case signedPayload = "signed_payload"
        }
    }

    private var url: URL?
    private var deliveries: [Delivery] = []
    private let signer: AppleSigner
    private let client: HTTPClient
    private let logger: Logger
    /// Attempts per notification, and the first retry delay (doubling).
    private let attempts: Int
    private let retryDelay: Duration
    /// Deliveries kept for `GET /sandbox/notifications`.
    static let keptDeliveries = 2_000

    init(
        url: URL?, signer: AppleSigner, client: HTTPClient, logger: Logger, attempts: Int = 5,
        retryDelay: Duration = .milliseconds(200)
    ) {
        self.url = url
        self.signer = signer
        self.client = client
        self.logger = logger
        self.attempts = attempts
        self.retryDelay = retryDelay
    }

    func setURL(_ url: URL?) { self.url = url }
    func currentURL() -> URL? { url }
    func list() -> [Delivery] { deliveries }

    /// Signs and sends a notification about `transaction`, with the renewal info of `latest` (the subscription's
    /// latest transaction) when it is a subscription; returns its UUID, `nil` when no URL is set.
    @discardableResult
    func notify(
        _ type: AppleNotificationType, _ subtype: AppleNotificationSubtype? = nil,
        transaction: AppleTransactionRecord?, latest: AppleTransactionRecord? = nil, bundleId: String? = nil,
        environment: AppleEnvironment = .sandbox, at now: Date = Date()
    ) throws -> String? {
        guard let url else { return nil }
        let uuid = UUID().uuidString.lowercased()
        let renewal = try latest.map { try signer.renewalInfo($0, recentStart: $0.originalPurchaseDate, at: now) }
        let payload = AppleNotificationPayload(
            notificationType: type.rawValue, subtype: subtype?.rawValue, notificationUUID: uuid,
            data: .init(
                appAppleId: transaction?.appAppleId, bundleId: transaction?.bundleId ?? bundleId,
                bundleVersion: transaction?.appVersion, environment: (transaction?.environment ?? environment).rawValue,
                signedTransactionInfo: try transaction.map { try signer.transaction($0, at: now) },
                signedRenewalInfo: renewal, status: latest.map { $0.subscriptionStatus(at: now).rawValue }),
            signedDate: now.appleMilliseconds)
        let signed = try signer.notification(payload)
        deliveries.append(
            Delivery(
                notificationUUID: uuid, type: type.rawValue, subtype: subtype?.rawValue,
                transactionId: transaction?.transactionId, attempts: 0, lastStatus: nil, delivered: false,
                signedPayload: signed))
        if deliveries.count > Self.keptDeliveries { deliveries.removeFirst(deliveries.count - Self.keptDeliveries) }
        Task { await self.deliver(uuid: uuid, signed: signed, to: url) }
        return uuid
    }

    /// Sends a recorded notification again `times` times, `concurrency` at once (Apple's retries, and worse);
    /// returns the statuses (0: no answer).
    func resend(uuid: String, times: Int, concurrency: Int) async throws -> [Int] {
        guard let delivery = deliveries.first(where: { $0.notificationUUID == uuid }) else {
            throw SandboxStoreError.notificationNotFound(uuid)
        }
        guard let url else { throw SandboxStoreError.notificationURLNotSet }
        return await postMany(delivery.signedPayload, to: url, times: times, concurrency: concurrency)
    }

    nonisolated private func postMany(_ signed: String, to url: URL, times: Int, concurrency: Int) async -> [Int] {
        var statuses: [Int] = []
        var remaining = times
        while remaining > 0 {
            let batch = min(remaining, max(1, concurrency))
            remaining -= batch
            statuses += await withTaskGroup(of: Int.self) { group in
                for _ in 0..<batch {
                    group.addTask { await self.post(signed, to: url) }
                }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        return statuses
    }

    private func deliver(uuid: String, signed: String, to url: URL) async {
        var delay = retryDelay
        for attempt in 1...attempts {
            let status = await post(signed, to: url)
            record(uuid: uuid, attempt: attempt, status: status)
            if (200..<300).contains(status) { return }
            try? await Task.sleep(for: delay)
            delay *= 2
        }
        logger.warning("notification not delivered", metadata: ["uuid": "\(uuid)", "url": "\(url)"])
    }

    private func record(uuid: String, attempt: Int, status: Int) {
        guard let index = deliveries.firstIndex(where: { $0.notificationUUID == uuid }) else { return }
        deliveries[index].attempts = attempt
        deliveries[index].lastStatus = status
        deliveries[index].delivered = (200..<300).contains(status)
    }

    /// POSTs `{"signedPayload": ...}`; the status, or 0 when nothing answered.
    nonisolated private func post(_ signed: String, to url: URL) async -> Int {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        let body = (try? JSONEncoder().encode(["signedPayload": signed])) ?? Data()
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: .seconds(10))
            _ = try? await response.body.collect(upTo: 1 << 20)
            return Int(response.status.code)
        } catch {
            return 0
        }
    }
}
