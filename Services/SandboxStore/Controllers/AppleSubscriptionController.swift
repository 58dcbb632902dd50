import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// `/sandbox/apple`: the App Store's clock for one subscription (named by any of its transaction ids), and an app's
/// subscription settings.
///
/// - `GET subscriptions/{id}`: its state (``AppleSubscriptionState``).
/// - `POST subscriptions/{id}/advance` (optional `{"outcome": "renew" | "fail", "grace_period_seconds": N}`): ends
///   the current stage now (period, grace period, billing retry) and runs what follows, as at its natural end.
/// - `POST subscriptions/{id}/billing` `{"fails": true}`: the next renewals fail; `false` recovers (at once when in
///   billing retry).
/// - `POST subscriptions/{id}/change-product` `{"product_id": ..., "kind": "upgrade" | "downgrade"}`.
/// - `POST subscriptions/{id}/extend` `{"days": 1-90}`: Apple extends the renewal date (`RENEWAL_EXTENDED`).
/// - `POST transactions/{id}/reverse-refund`: Apple reverses a refund (`REFUND_REVERSED`).
/// - `GET transactions/{id}/consumption`: what the app sent through Send Consumption Information.
/// - `GET`/`PUT apps/{bundleId}` `{"grace_period": "P16D" | null, "billing_retry_period": "P60D"}`.
///
/// Each action answers ``ClockActionResult``: `{"result", "transaction_id", "original_transaction_id", "status",
/// "subscription": {...}, "notifications": [{"type", "subtype", "transaction_id", "id"}]}` (`id` absent when no
/// notification URL is set).
struct AppleSubscriptionController {
    let store: SandboxStore
    let dispatcher: NotificationDispatcher
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("subscriptions/{transactionId}") { _, context in
            try JSONBody.response(try await state(context.parameters.get("transactionId") ?? ""))
        }
        routes.post("subscriptions/{transactionId}/advance") { request, context in
            let body = try await ControlBody.decodeOptional(
                AdvanceRequest.self, from: request, limit: maxBodyBytes, empty: AdvanceRequest())
            let fails = try body.fails()
            let id = context.parameters.get("transactionId") ?? ""
            return try await act(id) {
                try await store.advanceApple(
                    subscription: id, fails: fails, graceMilliseconds: body.gracePeriodSeconds.map { Int64($0) * 1000 })
            }
        }
        routes.post("subscriptions/{transactionId}/billing") { request, context in
            let body = try await JSONBody.decode(BillingRequest.self, from: request, limit: maxBodyBytes)
            let id = context.parameters.get("transactionId") ?? ""
            return try await act(id) { try await store.setAppleBilling(subscription: id, fails: body.fails) }
        }
        routes.post("subscriptions/{transactionId}/change-product") { request, context in
            let body = try await JSONBody.decode(ChangeProductRequest.self, from: request, limit: maxBodyBytes)
            guard CreateAppleTransactionRequest.isIdentifier(body.productId) else {
                throw RequestError.invalid("/product_id", "must be a product id")
            }
            guard body.kind == "upgrade" || body.kind == "downgrade" else {
                throw RequestError.invalid("/kind", "must be upgrade or downgrade")
            }
            let id = context.parameters.get("transactionId") ?? ""
            return try await act(id) {
                try await store.changeAppleProduct(
                    subscription: id, to: body.productId, upgrade: body.kind == "upgrade")
            }
        }
        routes.post("subscriptions/{transactionId}/extend") { request, context in
            let body = try await JSONBody.decode(ExtendRequest.self, from: request, limit: maxBodyBytes)
            guard (1...90).contains(body.days) else { throw RequestError.invalid("/days", "must be 1 to 90") }
            let id = context.parameters.get("transactionId") ?? ""
            return try await act(id) { try await store.extendApple(subscription: id, days: body.days) }
        }
        routes.post("transactions/{transactionId}/reverse-refund") { _, context in
            let id = context.parameters.get("transactionId") ?? ""
            let events = try await ErrorMapping.control { try await store.reverseAppleRefund(id: id) }
            return try JSONBody.response(
                TransactionActionResult(
                    result: "refund_reversed", transactionId: id, notifications: await send(events)))
        }
        routes.get("transactions/{transactionId}/consumption") { _, context in
            let id = context.parameters.get("transactionId") ?? ""
            guard await store.appleTransaction(id: id) != nil else {
                throw ErrorMapping.controlError(.transactionNotFound(id))
            }
            return try JSONBody.response(ConsumptionList(consumption: await store.consumption(transactionId: id)))
        }
        routes.get("apps/{bundleId}") { _, context in
            try JSONBody.response(await store.appSettings(apple: context.parameters.get("bundleId") ?? ""))
        }
        routes.put("apps/{bundleId}") { request, context in
            let bundleId = context.parameters.get("bundleId") ?? ""
            guard CreateAppleTransactionRequest.isIdentifier(bundleId) else {
                throw RequestError.invalid("/bundle_id", "must be a bundle id")
            }
            let settings = try await AppSettingsBody.decode(from: request, limit: maxBodyBytes, store: "apple")
            try await store.setAppSettings(settings, key: "apple:\(bundleId)")
            return try JSONBody.response(settings)
        }
        return routes
    }

    /// Runs a clock action, sends its notifications, answers the subscription's state and what was sent.
    private func act(_ id: String, _ action: () async throws -> [AppleEvent]) async throws -> Response {
        let events = try await ErrorMapping.control { try await action() }
        let sent = await send(events)
        let subscription = try await state(id)
        return try JSONBody.response(
            ClockActionResult(
                result: events.last.map(Self.result) ?? "unchanged",
                transactionId: events.last?.transaction?.transactionId ?? subscription.latestTransactionId,
                originalTransactionId: subscription.originalTransactionId, status: subscription.status,
                subscription: subscription, notifications: sent))
    }

    /// What an action did, in one word: `renewed`, `billing_failed`, `grace_expired`, `expired`, `plan_changed`.
    static func result(_ event: AppleEvent) -> String {
        switch event.type {
        case .didRenew: "renewed"
        case .didFailToRenew: "billing_failed"
        case .gracePeriodExpired: "grace_expired"
        case .expired: "expired"
        case .didChangeRenewalPref: event.subtype == .upgrade ? "renewed" : "plan_changed"
        default: event.type.rawValue.lowercased()
        }
    }

    /// Sends `events`' notifications; what was sent.
    private func send(_ events: [AppleEvent]) async -> [SentNotification] {
        let ids = await dispatcher.send(events.map(StoreEvent.apple))
        return events.enumerated().map { offset, event in
            SentNotification(
                type: event.type.rawValue, subtype: event.subtype?.rawValue,
                transactionId: event.transaction?.transactionId, id: ids.count == events.count ? ids[offset] : nil)
        }
    }

    private func state(_ id: String) async throws -> AppleSubscriptionState {
        try await ErrorMapping.control {
            let (index, schedule) = try await store.subscriptionForClock(id)
            let latest = await store.state.appleTransactions[index]
            return AppleSubscriptionState(latest, schedule: schedule)
        }
    }
}
