import Foundation
import Hummingbird
import ShopkeeperHTTP

/// `POST /sandbox/apple/subscriptions/{transactionId}/advance`: ends the subscription's current period now and runs
/// what follows, with its App Store Server Notification. Body (optional): `{"outcome": "renew" | "fail",
/// "grace_period_seconds": N}`; default `renew`. See ``SandboxStore/endPeriod(subscription:outcome:grace:at:)``.
struct AppleSubscriptionController {
    let store: SandboxStore
    let notifier: AppleNotifier
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("{transactionId}/advance") { request, context in
            let body = try await ControlBody.decodeOptional(
                AdvanceRequest.self, from: request, limit: maxBodyBytes, empty: .init())
            if let grace = body.gracePeriodSeconds, !(1...31_536_000).contains(grace) {
                throw RequestError.invalid("/grace_period_seconds", "must be 1 to 31536000")
            }
            let id = context.parameters.get("transactionId") ?? ""
            let end = try await ErrorMapping.control {
                try await store.endPeriod(
                    subscription: id, outcome: body.outcome ?? .renew, grace: body.gracePeriodSeconds.map(Double.init))
            }
            try await AppleNotifications.periodEnded(end, store: store, notifier: notifier)
            return try JSONBody.response(AdvanceResult(end))
        }
        return routes
    }
}

struct AdvanceRequest: Codable, Sendable {
    var outcome: RenewalOutcome?
    var gracePeriodSeconds: Int?

    init(outcome: RenewalOutcome? = nil, gracePeriodSeconds: Int? = nil) {
        self.outcome = outcome
        self.gracePeriodSeconds = gracePeriodSeconds
    }

    enum CodingKeys: String, CodingKey {
        case outcome
        case gracePeriodSeconds = "grace_period_seconds"
    }
}

/// What `advance` did: `renewed` (with the new transaction), `billing_failed`, `grace_expired` or `expired`.
struct AdvanceResult: Codable, Sendable {
    var result: String
    var transactionId: String
    var originalTransactionId: String
    var status: Int

    init(_ end: PeriodEnd) {
        let record: AppleTransactionRecord
        switch end {
        case .renewed(let renewed, _): (result, record) = ("renewed", renewed)
        case .billingFailed(let failed, _): (result, record) = ("billing_failed", failed)
        case .graceExpired(let failed): (result, record) = ("grace_expired", failed)
        case .expired(let ended, _): (result, record) = ("expired", ended)
        }
        transactionId = record.transactionId
        originalTransactionId = record.originalTransactionId
        status = record.subscriptionStatus(at: Date()).rawValue
    }

    enum CodingKeys: String, CodingKey {
        case result, status
        case transactionId = "transaction_id"
        case originalTransactionId = "original_transaction_id"
    }
}
