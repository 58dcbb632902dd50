import Hummingbird
import ShopkeeperHTTP

/// `POST /v1/notifications/apple`: App Store Server Notifications V2, forwarded by the gateway without an API key
/// (the store's signature is the proof). Answered once the notification is verified and recorded; processed in
/// the background. A retry of a recorded notification is answered 200 again and changes nothing. A database
/// failure answers 5xx, so the store sends it again.
///
/// `?app=<app id>` picks the app when several apps have credentials for the same bundle id.
struct NotificationController {
    let apple: AppleNotifications
    /// Apple's notifications are a few kilobytes.
    static let maximumBodyBytes = 64 * 1024

    func addRoutes(to router: Router<ServiceRequestContext>) {
        router.post("/v1/notifications/apple") { request, context in
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
