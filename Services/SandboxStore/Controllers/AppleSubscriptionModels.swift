import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// An auto-renewable subscription as the sandbox's clock sees it.
struct AppleSubscriptionState: Codable, Sendable {
    var originalTransactionId: String
    var latestTransactionId: String
    var productId: String
    /// Apple's status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    var status: Int
    var expiresDate: Date?
    var autoRenew: Bool
    var billingFails: Bool
    var inBillingRetry: Bool
    var gracePeriodExpiresDate: Date?
    var renewsInto: String?
    /// The clock has ended it (expired, refunded or revoked).
    var ended: Bool
    var periodSeconds: Double

    init(_ latest: AppleTransactionRecord, schedule: AppleRenewalSchedule) {
        originalTransactionId = latest.originalTransactionId
        latestTransactionId = latest.transactionId
        productId = latest.productId
        status = latest.subscriptionStatus(at: Date()).rawValue
        expiresDate = latest.expiresDate.map(Date.init(appleMilliseconds:))
        autoRenew = latest.autoRenewStatus != 0 && !latest.isRevoked
        billingFails = schedule.billingFails
        inBillingRetry = latest.isInBillingRetryPeriod == true
        gracePeriodExpiresDate = latest.gracePeriodExpiresDate.map(Date.init(appleMilliseconds:))
        renewsInto = schedule.renewsInto
        ended = schedule.ended || latest.isRevoked
        periodSeconds = Double(schedule.periodMilliseconds) / 1000
    }

    enum CodingKeys: String, CodingKey {
        case status, ended
        case originalTransactionId = "original_transaction_id"
        case latestTransactionId = "latest_transaction_id"
        case productId = "product_id"
        case expiresDate = "expires_date"
        case autoRenew = "auto_renew"
        case billingFails = "billing_fails"
        case inBillingRetry = "in_billing_retry"
        case gracePeriodExpiresDate = "grace_period_expires_date"
        case renewsInto = "renews_into"
        case periodSeconds = "period_seconds"
    }
}

/// What a clock action sent (`id` is the notification's, absent when its store has no URL).
struct SentNotification: Codable, Sendable, Equatable {
    var type: String
    var subtype: String?
    var transactionId: String?
    var id: String?

    enum CodingKeys: String, CodingKey {
        case type, subtype, id
        case transactionId = "transaction_id"
    }
}

/// The answer to an App Store clock action: what happened (`result`), the transaction it is about (the new one when it
/// renewed), the subscription's status afterwards, its whole state and the notifications sent.
struct ClockActionResult: Codable, Sendable {
    var result: String
    var transactionId: String
    var originalTransactionId: String
    /// Apple's status number.
    var status: Int
    var subscription: AppleSubscriptionState
    var notifications: [SentNotification]

    enum CodingKeys: String, CodingKey {
        case result, status, subscription, notifications
        case transactionId = "transaction_id"
        case originalTransactionId = "original_transaction_id"
    }
}

/// `POST .../advance` (optional body): `outcome` decides this one billing attempt (`renew` or `fail`; by default the
/// subscription's billing setting), `grace_period_seconds` the grace period (real seconds) a failure gives.
struct AdvanceRequest: Codable, Sendable {
    var outcome: String?
    var gracePeriodSeconds: Int?

    init(outcome: String? = nil, gracePeriodSeconds: Int? = nil) {
        self.outcome = outcome
        self.gracePeriodSeconds = gracePeriodSeconds
    }

    enum CodingKeys: String, CodingKey {
        case outcome
        case gracePeriodSeconds = "grace_period_seconds"
    }

    /// Whether this attempt fails, as asked; checks the fields.
    func fails() throws(RequestError) -> Bool? {
        var problems: [FieldProblem] = []
        if let outcome, outcome != "renew" && outcome != "fail" {
            problems.append(FieldProblem(pointer: "/outcome", detail: "must be renew or fail"))
        }
        if let gracePeriodSeconds, !(1...31_536_000).contains(gracePeriodSeconds) {
            problems.append(FieldProblem(pointer: "/grace_period_seconds", detail: "must be 1 to 31536000"))
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return outcome.map { $0 == "fail" }
    }
}

/// `GET /sandbox/apple/transactions/{id}/consumption`: what the app sent through Send Consumption Information.
struct ConsumptionList: Codable, Sendable {
    var consumption: [ConsumptionEntry]

    init(consumption records: [AppleConsumptionRecord]) {
        consumption = records.map {
            ConsumptionEntry(version: $0.version, body: $0.body, receivedAt: $0.receivedAt)
        }
    }

    struct ConsumptionEntry: Codable, Sendable {
        var version: String
        /// The JSON body as sent.
        var body: String
        var receivedAt: Date

        enum CodingKeys: String, CodingKey {
            case version, body
            case receivedAt = "received_at"
        }
    }
}

/// The answer to an action on one transaction.
struct TransactionActionResult: Codable, Sendable {
    var result: String
    var transactionId: String
    var notifications: [SentNotification]

    enum CodingKeys: String, CodingKey {
        case result, notifications
        case transactionId = "transaction_id"
    }
}

/// `POST .../extend`.
struct ExtendRequest: Codable, Sendable {
    var days: Int
}

/// `POST .../billing`.
struct BillingRequest: Codable, Sendable {
    var fails: Bool
}

/// `POST .../change-product`.
struct ChangeProductRequest: Codable, Sendable {
    var productId: String
    /// `upgrade` (now) or `downgrade` (at the next renewal).
    var kind: String

    enum CodingKeys: String, CodingKey {
        case kind
        case productId = "product_id"
    }
}

/// `PUT /sandbox/{apple,google}/apps/{id}`: ISO 8601 durations, `null` for none.
enum AppSettingsBody {
    static func decode(from request: Request, limit: Int, store: String) async throws -> StoreAppSettings {
        let raw = try await JSONBody.decode([String: String?].self, from: request, limit: limit)
        var problems: [FieldProblem] = []
        func duration(_ name: String) -> ISODuration? {
            guard let value = raw[name], let text = value else { return nil }
            guard let parsed = ISODuration(text) else {
                problems.append(FieldProblem(pointer: "/\(name)", detail: "must be an ISO 8601 duration such as P16D"))
                return nil
            }
            return parsed
        }
        let allowed: Set<String> =
            store == "apple" ? ["grace_period", "billing_retry_period"] : ["grace_period", "account_hold"]
        for name in raw.keys where !allowed.contains(name) {
            problems.append(FieldProblem(pointer: "/\(name)", detail: "is not a setting of this store"))
        }
        let settings = StoreAppSettings(
            gracePeriod: duration("grace_period"), billingRetryPeriod: duration("billing_retry_period"),
            accountHold: duration("account_hold"))
        guard problems.isEmpty else { throw RequestError.validationFailed(problems) }
        return settings
    }
}
