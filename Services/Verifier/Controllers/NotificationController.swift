import Foundation
import HTTPTypes
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// `POST /v1/notifications/apple`: App Store Server Notifications V2, forwarded by the gateway without an API key
/// (the store's signature is the proof). Answered once the notification is verified and recorded; processed in
/// the background. A retry of a recorded notification is answered 200 again and changes nothing. A database
/// failure answers 5xx, so the store sends it again.
///
/// `POST /v1/notifications/google`: Google Play real-time developer notifications, as Cloud Pub/Sub pushes them,
/// authenticated by Google's OIDC token (`Authorization: Bearer`, when configured) or the app's `?token=`.
///
/// `POST /v1/notifications/stripe`: Stripe's webhook events, authenticated by `Stripe-Signature` under the app's
/// signing secrets, recorded once by event id, then processed before the answer: the event and its objects are read
/// back from Stripe's API (never taken from the body), so Stripe unreachable answers 503 and Stripe sends the event
/// again (the notification worker retries it meanwhile). An event processed before, or being processed by another
/// delivery, is answered 200 at once.
///
/// `?app=<app id>` picks the app when several apps have credentials for the same bundle id or package, and names
/// the app of a Stripe endpoint (without it, each app's signing secrets are tried).
struct NotificationController {
    let apple: AppleNotifications
    let google: GoogleNotifications
    let stripe: StripeWebhook
    let stripeEvents: StripeEventProcessor
    /// Stripe's events can carry large objects.
    static let maximumStripeBodyBytes = 1 << 20
    /// How long a webhook's own processing holds its event before the worker may take it.
    static let stripeLease: Duration = .seconds(60)
    /// Apple's notifications are a few kilobytes.
    static let maximumBodyBytes = 64 * 1024

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("/v1/notifications/apple") { request, context in
            let body = try await JSONBody.decode(
                AppleNotificationBody.self, from: request, limit: Self.maximumBodyBytes)
            let requested = request.uri.queryParameters["app"].map(String.init)
            let (notification, duplicate) = try await apple.receive(
                signedPayload: body.signedPayload, requestedApp: requested)
            context.logger.info(
                "store notification received",
                metadata: [
                    "app_id": "\(notification.appID)", "type": "\(notification.type)",
                    "subtype": "\(notification.subtype ?? "")", "duplicate": "\(duplicate)",
                ])
            return try JSONBody.response(
                NotificationReceipt(notificationID: notification.id, appID: notification.appID, duplicate: duplicate))
        }
        routes.post("/v1/notifications/google") { request, context in
            let envelope = try await JSONBody.decode(
                PubSubPushEnvelope.self, from: request, limit: Self.maximumBodyBytes)
            let query = request.uri.queryParameters
            let (notification, duplicate) = try await google.receive(
                envelope, bearer: Self.bearer(request.headers[.authorization]), token: query["token"].map(String.init),
                requestedApp: query["app"].map(String.init))
            context.logger.info(
                "store notification received",
                metadata: [
                    "app_id": "\(notification.appID)", "type": "\(notification.type)", "duplicate": "\(duplicate)",
                ])
            return try JSONBody.response(
                NotificationReceipt(notificationID: notification.id, appID: notification.appID, duplicate: duplicate))
        }
        routes.post("/v1/notifications/stripe") { request, context in
            let body = try await JSONBody.collect(from: request, limit: Self.maximumStripeBodyBytes)
            let (notification, duplicate) = try await stripe.receive(
                body: Data(body.readableBytesView),
                signature: request.headers[.stripeSignature],
                requestedApp: request.uri.queryParameters["app"].map(String.init), lease: Self.stripeLease)
            context.logger.info(
                "store notification received",
                metadata: [
                    "app_id": "\(notification.appID)", "type": "\(notification.type)", "duplicate": "\(duplicate)",
                ])
            // A new event is this request's to process; a redelivered one only if it is still pending and no one
            // works on it now (processed, failed or being processed: answered at once).
            let claimed =
                duplicate
                ? try await stripe.inbox.claim(
                    store: notification.store, id: notification.id, lease: Self.stripeLease)
                : notification
            if let claimed, case .retry(let error) = await stripeEvents.process(claimed) { throw error }
            return try JSONBody.response(
                NotificationReceipt(notificationID: notification.id, appID: notification.appID, duplicate: duplicate))
        }
        return routes
    }

    /// The token of an `Authorization: Bearer` header.
    static func bearer(_ header: String?) -> String? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
}

/// Apple's request body: `{"signedPayload": "<JWS>"}`.
struct AppleNotificationBody: Codable, Sendable {
    var signedPayload: String
}

/// The answer to a store: recorded (now or before).
struct NotificationReceipt: Codable, Sendable {
    var notificationID: String
    var appID: String
    var duplicate: Bool

    enum CodingKeys: String, CodingKey {
        case duplicate
        case notificationID = "notification_id"
        case appID = "app_id"
    }
}

extension HTTPField.Name {
    /// `Stripe-Signature`: `t=...,v1=...` over a Stripe webhook's body.
    static let stripeSignature = "stripe-signature".fieldName
}
