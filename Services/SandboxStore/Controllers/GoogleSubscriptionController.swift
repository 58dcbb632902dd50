import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// `/sandbox/google`: Google Play's clock for one subscription (by purchase token), and an app's subscription
/// settings.
///
/// - `GET purchases/{token}/subscription`: its state (``GoogleSubscriptionClockState``).
/// - `POST purchases/{token}/advance`: ends the current stage now (period, grace period, account hold).
/// - `POST purchases/{token}/billing` `{"fails": true}`: the next renewals fail; `false` recovers (at once in grace
///   period or account hold).
/// - `POST purchases/{token}/auto-renew` `{"enabled": false}`: the customer cancels (`SUBSCRIPTION_CANCELED`);
///   `true` restores it before expiry (`SUBSCRIPTION_RESTARTED`).
/// - `POST purchases/{token}/change-product` `{"product_id": ..., "base_plan_id": ...}`: an upgrade or downgrade, as
///   a new purchase token linked to this one (the answer's `subscription` is the new one).
/// - `GET`/`PUT apps/{packageName}` `{"grace_period": "P7D" | null, "account_hold": "P30D"}`.
struct GoogleSubscriptionController {
    let store: SandboxStore
    let dispatcher: NotificationDispatcher
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("purchases/{token}/subscription") { _, context in
            let token = context.parameters.get("token") ?? ""
            guard let record = await store.googlePurchase(token: token) else {
                throw ErrorMapping.controlError(.purchaseNotFound(token))
            }
            return try JSONBody.response(GoogleSubscriptionClockState(record))
        }
        routes.post("purchases/{token}/advance") { _, context in
            let token = context.parameters.get("token") ?? ""
            return try await act { try await store.advanceGoogle(token: token) }
        }
        routes.post("purchases/{token}/billing") { request, context in
            let body = try await JSONBody.decode(BillingRequest.self, from: request, limit: maxBodyBytes)
            let token = context.parameters.get("token") ?? ""
            return try await act { try await store.setGoogleBilling(token: token, fails: body.fails) }
        }
        routes.post("purchases/{token}/auto-renew") { request, context in
            let body = try await JSONBody.decode(AutoRenewRequest.self, from: request, limit: maxBodyBytes)
            let token = context.parameters.get("token") ?? ""
            return try await act { try await store.setGoogleAutoRenew(token: token, enabled: body.enabled) }
        }
        routes.post("purchases/{token}/change-product") { request, context in
            let body = try await JSONBody.decode(GoogleChangeProductRequest.self, from: request, limit: maxBodyBytes)
            guard CreateAppleTransactionRequest.isIdentifier(body.productId) else {
                throw RequestError.invalid("/product_id", "must be a product id")
            }
            let token = context.parameters.get("token") ?? ""
            return try await act {
                try await store.changeGoogleProduct(token: token, to: body.productId, basePlanId: body.basePlanId)
            }
        }
        routes.get("apps/{packageName}") { _, context in
            try JSONBody.response(await store.appSettings(google: context.parameters.get("packageName") ?? ""))
        }
        routes.put("apps/{packageName}") { request, context in
            let packageName = context.parameters.get("packageName") ?? ""
            guard CreateAppleTransactionRequest.isIdentifier(packageName) else {
                throw RequestError.invalid("/package_name", "must be a package name")
            }
            let settings = try await AppSettingsBody.decode(from: request, limit: maxBodyBytes, store: "google")
            try await store.setAppSettings(settings, key: "google:\(packageName)")
            return try JSONBody.response(settings)
        }
        return routes
    }

    private func act(_ action: () async throws -> (GooglePurchaseRecord, [GoogleEvent])) async throws -> Response {
        let (record, events) = try await ErrorMapping.control { try await action() }
        let ids = await dispatcher.send(events.map(StoreEvent.google))
        let sent = events.enumerated().map { offset, event in
            SentNotification(type: event.name, id: ids.count == events.count ? ids[offset] : nil)
        }
        return try JSONBody.response(
            GoogleClockActionResult(subscription: GoogleSubscriptionClockState(record), notifications: sent))
    }
}

/// A Play subscription as the sandbox's clock sees it; `subscriptionsv2.get` answers the same.
struct GoogleSubscriptionClockState: Codable, Sendable {
    var purchaseToken: String
    var productId: String
    /// `SUBSCRIPTION_STATE_...`, as `subscriptionsv2.get` reports it now.
    var subscriptionState: String
    var expiryTime: Date?
    var autoRenewing: Bool
    var billingFails: Bool
    var graceUntil: Date?
    var holdUntil: Date?
    var latestOrderId: String
    var ended: Bool
    var linkedPurchaseToken: String?

    init(_ record: GooglePurchaseRecord) {
        purchaseToken = record.purchaseToken
        productId = record.productId
        subscriptionState = record.subscriptionState(at: Date()).rawValue
        expiryTime = record.expiryTime.map(Date.init(appleMilliseconds:))
        autoRenewing = record.autoRenewing && !record.voided
        billingFails = record.billingFails == true
        graceUntil = record.graceUntil.map(Date.init(appleMilliseconds:))
        holdUntil = record.holdUntil.map(Date.init(appleMilliseconds:))
        latestOrderId = record.orderId
        ended = record.ended == true || record.voided
        linkedPurchaseToken = record.linkedPurchaseToken
    }

    enum CodingKeys: String, CodingKey {
        case ended
        case purchaseToken = "purchase_token"
        case productId = "product_id"
        case subscriptionState = "subscription_state"
        case expiryTime = "expiry_time"
        case autoRenewing = "auto_renewing"
        case billingFails = "billing_fails"
        case graceUntil = "grace_until"
        case holdUntil = "hold_until"
        case latestOrderId = "latest_order_id"
        case linkedPurchaseToken = "linked_purchase_token"
    }
}

/// The answer to a Play clock action: the subscription's state afterwards and the notifications sent.
struct GoogleClockActionResult: Codable, Sendable {
    var subscription: GoogleSubscriptionClockState
    var notifications: [SentNotification]
}

/// `POST /sandbox/google/purchases/{token}/change-product`.
struct GoogleChangeProductRequest: Codable, Sendable {
    var productId: String
    var basePlanId: String?

    enum CodingKeys: String, CodingKey {
        case productId = "product_id"
        case basePlanId = "base_plan_id"
    }
}

/// `POST .../auto-renew`.
struct AutoRenewRequest: Codable, Sendable {
    var enabled: Bool
}
